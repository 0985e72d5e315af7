#include "push/pusher.h"

#include <cstdio>

namespace hearth::push {
namespace {

void say(const std::string& line) {
  std::fprintf(stderr, "hearth push: %s\n", line.c_str());
}

// "(3 attempts)". (Built by appending: g++ 12 warns falsely on "literal" + std::string here.)
std::string attempts_said(int n) {
  std::string s = "(";
  s += std::to_string(n);
  s += n == 1 ? " attempt)" : " attempts)";
  return s;
}

}  // namespace

Pusher::Pusher(Endpoint endpoint, SendOptions options, Spool* spool)
    : url_(endpoint_url(endpoint)),
      tenant_(options.tenant),
      sender_(std::move(endpoint), std::move(options)),
      spool_(spool) {}

void Pusher::flush() {
  if (spool_ == nullptr) return;
  auto names = spool_->list();
  if (!names) {
    say(names.error().message);
    tally_.failed = true;
    return;
  }
  for (const std::string& name : *names) {
    auto entry = spool_->read(name);
    if (!entry) {
      say(entry.error().message + ": moved to refused/");
      if (auto r = spool_->set_aside(name); !r) say(r.error().message);
      continue;
    }
    if (entry->url != url_ || entry->tenant != tenant_) continue;  // another server's
    if (unreachable_ || denied_) {
      ++tally_.pending;
      continue;
    }
    SendResult sent = sender_.send({entry->target, entry->content_type, std::move(entry->body)});
    switch (sent.outcome) {
      case Outcome::kDelivered:
        if (auto r = spool_->remove(name); !r) {
          // Delivered, but still in the spool: the next flush would send it again.
          say(r.error().message + " (delivered: remove it by hand, or it is sent again)");
          tally_.failed = true;
        }
        ++tally_.flushed;
        break;
      case Outcome::kRefused:
        say(url_ + " refused spooled profile " + name + ": " + sent.detail + "; moved to " +
            spool_->dir() + "/refused/");
        if (auto r = spool_->set_aside(name); !r) say(r.error().message);
        ++tally_.refused;
        break;
      case Outcome::kDenied:
        say(url_ + ": " + sent.detail + "; spooled profiles kept");
        denied_ = true;
        ++tally_.denied;
        ++tally_.pending;
        break;
      case Outcome::kUnreachable:
        say(url_ + ": " + sent.detail + " " + attempts_said(sent.attempts) +
            "; spooled profiles kept");
        unreachable_ = true;
        ++tally_.pending;
        break;
    }
  }
  if (tally_.flushed > 0) {
    say("delivered " + std::to_string(tally_.flushed) + " spooled profile" +
        (tally_.flushed == 1 ? "" : "s") + " to " + url_);
  }
}

void Pusher::push(const Request& request, const std::string& what) {
  if (denied_) {
    say(what + " not sent: the server refused the request above");
    ++tally_.denied;
    return;
  }
  if (unreachable_) {
    spool(request, what);
    return;
  }
  SendResult sent = sender_.send(request);
  switch (sent.outcome) {
    case Outcome::kDelivered:
      ++tally_.delivered;
      return;
    case Outcome::kRefused:
      say(url_ + " refused " + what + ": " + sent.detail);
      ++tally_.refused;
      return;
    case Outcome::kDenied:
      say(url_ + ": " + sent.detail);
      denied_ = true;
      ++tally_.denied;
      return;
    case Outcome::kUnreachable:
      say(url_ + ": " + sent.detail + " " + attempts_said(sent.attempts));
      unreachable_ = true;
      spool(request, what);
      return;
  }
}

void Pusher::spool(const Request& request, const std::string& what) {
  if (spool_ == nullptr) {
    say(what + " not delivered, and not spooled (--no-spool)");
    tally_.failed = true;
    return;
  }
  std::vector<std::string> dropped;
  auto name =
      spool_->add({url_, tenant_, request.target, request.content_type, request.body}, &dropped);
  for (const std::string& d : dropped) {
    say("the spool is full: dropped its oldest profile, " + spool_->dir() + "/" + d);
  }
  if (!name) {
    say(what + " not delivered, and not spooled: " + name.error().message);
    tally_.failed = true;
    return;
  }
  say(what + " spooled as " + spool_->dir() + "/" + *name + ": a later hearth push to " + url_ +
      " delivers it");
  ++tally_.spooled;
  ++tally_.pending;
}

}  // namespace hearth::push
