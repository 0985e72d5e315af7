#include "push/sender.h"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "common/version.h"

namespace hearth::push {
namespace {

// The server's answer in one line: status, reason, and the first line of its body (trimmed).
std::string describe_answer(const httplib::Response& res) {
  std::string line = std::to_string(res.status);
  if (!res.reason.empty()) line += " " + res.reason;
  std::string body = res.body.substr(0, std::min<size_t>(res.body.find('\n'), 200));
  while (!body.empty() && (body.back() == ' ' || body.back() == '\r')) body.pop_back();
  for (char& c : body) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (!body.empty()) line += ": " + body;
  return line;
}

std::string describe_error(httplib::Error error, bool https) {
  switch (error) {
    case httplib::Error::Connection:
      return "cannot connect (refused, or no route to the server)";
    case httplib::Error::ConnectionTimeout:
      return "timed out connecting";
    case httplib::Error::Read:
      return "no answer (timed out, or the connection was closed)";
    case httplib::Error::Write:
      return "the connection broke while sending";
    case httplib::Error::SSLConnection:
      return "the TLS handshake failed";
    case httplib::Error::SSLLoadingCerts:
      return "cannot load the CA certificates (--ca-file)";
    case httplib::Error::SSLServerVerification:
      return "the server's certificate is not trusted or not for this host (--ca-file; "
             "--insecure skips the check)";
    default:
      return httplib::to_string(error) + (https ? " (https)" : "");
  }
}

// Seconds in a Retry-After field (the delay form; a date is not taken), or -1.
double retry_after(const httplib::Response& res) {
  if (!res.has_header("Retry-After")) return -1;
  const std::string v = res.get_header_value("Retry-After");
  int seconds = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seconds);
  if (ec != std::errc() || end != v.data() + v.size() || seconds < 0) return -1;
  return seconds;
}

}  // namespace

Outcome classify_status(int status) {
  if (status >= 200 && status < 300) return Outcome::kDelivered;
  if (status == 408 || status == 429 || status >= 500) return Outcome::kUnreachable;
  if (status == 401 || status == 403 || status == 404 || status == 405 || status == 407) {
    return Outcome::kDenied;
  }
  return Outcome::kRefused;
}

double backoff_delay(int retry, double backoff_s, double max_backoff_s, double unit) {
  const double full = std::min(max_backoff_s, backoff_s * std::ldexp(1.0, std::min(retry, 30)));
  return full / 2 + full / 2 * std::clamp(unit, 0.0, 1.0);
}

struct Sender::Impl {
  Endpoint endpoint;
  SendOptions options;
  std::unique_ptr<httplib::ClientImpl> client;
  std::mt19937_64 random{std::random_device{}()};
};

Sender::Sender(Endpoint endpoint, SendOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->endpoint = std::move(endpoint);
  impl_->options = std::move(options);
  const Endpoint& e = impl_->endpoint;
  const SendOptions& o = impl_->options;
  if (e.https) {
    auto ssl = std::make_unique<httplib::SSLClient>(e.host, e.port);
    ssl->enable_server_certificate_verification(!o.insecure);
    if (!o.ca_file.empty()) ssl->set_ca_cert_path(o.ca_file);
    impl_->client = std::move(ssl);
  } else {
    impl_->client = std::make_unique<httplib::ClientImpl>(e.host, e.port);
  }
  httplib::ClientImpl& c = *impl_->client;
  const auto timeout = std::chrono::microseconds(std::llround(o.timeout_s * 1e6));
  c.set_connection_timeout(timeout);
  c.set_read_timeout(timeout);
  c.set_write_timeout(timeout);
  c.set_url_encode(false);  // the target is percent-encoded already (ingest_request.h)
  c.set_follow_location(false);
  c.set_keep_alive(true);
  if (o.credentials.kind == Credentials::Kind::kBearer) {
    c.set_bearer_token_auth(o.credentials.token);
  } else if (o.credentials.kind == Credentials::Kind::kBasic) {
    c.set_basic_auth(o.credentials.user, o.credentials.password);
  }
}

Sender::~Sender() = default;

SendResult Sender::send(const Request& request) {
  SendResult r;
  const SendOptions& o = impl_->options;
  httplib::Headers headers{{"User-Agent", std::string("hearth/") + kVersion}};
  if (!o.tenant.empty()) headers.emplace("X-Scope-OrgID", o.tenant);
  for (int attempt = 0;; ++attempt) {
    r.attempts = attempt + 1;
    double wait = -1;
    httplib::Result res =
        impl_->client->Post(request.target, headers, request.body, request.content_type);
    if (res) {
      r.status = res->status;
      r.detail = describe_answer(*res);
      r.outcome = classify_status(res->status);
      wait = retry_after(*res);
    } else {
      r.status = 0;
      r.detail = describe_error(res.error(), impl_->endpoint.https);
      // A server whose certificate is refused is not down: asking again will not help.
      const bool tls = res.error() == httplib::Error::SSLServerVerification ||
                       res.error() == httplib::Error::SSLLoadingCerts;
      r.outcome = tls ? Outcome::kDenied : Outcome::kUnreachable;
    }
    if (r.outcome != Outcome::kUnreachable || attempt >= o.retries) return r;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double delay = backoff_delay(attempt, o.backoff_s, o.max_backoff_s, unit(impl_->random));
    if (wait >= 0 && wait <= 60) delay = std::max(delay, wait);
    if (o.sleep) {
      o.sleep(delay);
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(std::llround(delay * 1e6)));
    }
  }
}

}  // namespace hearth::push
