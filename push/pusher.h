// One `hearth push` run: the profiles spooled earlier for this server first (oldest first),
// then the new ones; each sent (sender.h) and, when the server cannot be reached, spooled
// (spool.h) so that a later push delivers it. Once the server has been found unreachable in a
// run, the rest is spooled without trying again (each try would wait through every retry).
// Every event worth telling is one line on stderr ("hearth push: …").
#pragma once

#include <cstdint>
#include <string>

#include "push/sender.h"
#include "push/spool.h"

namespace hearth::push {

struct PushTally {
  int delivered = 0;    // new profiles the server took
  int flushed = 0;      // spooled profiles the server took (and that left the spool)
  int spooled = 0;      // new profiles spooled
  int refused = 0;      // profiles the server refused (new, or moved to DIR/refused/)
  int denied = 0;       // requests refused for the credentials, tenant or URL
  int pending = 0;      // profiles for this server still spooled at the end
  bool failed = false;  // the spool could not be written: a profile may be lost
};

class Pusher {
 public:
  // SPOOL: nullopt when the run spools nothing (--no-spool): an unreachable server then
  // loses nothing only because the caller still has the profile.
  Pusher(Endpoint endpoint, SendOptions options, Spool* spool);

  // Sends what the spool holds for this server (and tenant), oldest first; each removed after
  // a 2xx answer, moved to DIR/refused/ when refused, kept otherwise.
  void flush();
  // Sends a new profile; spools it when the server cannot be reached.
  void push(const Request& request, const std::string& what);

  const PushTally& tally() const { return tally_; }

 private:
  void spool(const Request& request, const std::string& what);

  std::string url_;
  std::string tenant_;
  Sender sender_;
  Spool* spool_;
  bool unreachable_ = false;  // found so in this run: the rest is spooled at once
  bool denied_ = false;
  PushTally tally_;
};

}  // namespace hearth::push
