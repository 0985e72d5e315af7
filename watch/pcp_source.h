// The host's PCP metrics for `hearth watch`'s `pcp:` rules, through libpcp from the pmcd the
// host already runs (no daemon of ours). One context, metrics added once, fetched together.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace hearth::watch {

class PcpSource {
 public:
  // Connects to pmcd on HOST ("local:" is this host's, as PCP's tools default; "HOST:PORT"
  // another). The error says what failed in one line: "cannot reach PCP's pmcd on local:
  // Connection refused (is pmcd running?)".
  static Result<PcpSource> connect(const std::string& host);

  PcpSource(PcpSource&&) noexcept;
  PcpSource& operator=(PcpSource&&) noexcept;
  ~PcpSource();

  // Adds METRIC (its INSTANCE, or all of its instances when ""); returns its index in what
  // fetch() gives. Errors, one line: an unknown metric, an instance it does not have, a value
  // that is not a number.
  Result<size_t> add(const std::string& metric, const std::string& instance);

  // Every added metric's values now, one per instance (one for a metric without instances); a
  // counter as its rate per second since the last fetch (nothing at the first fetch). A metric
  // with no value now gives an empty list. T_NS: the caller's clock at the fetch (ns).
  Result<std::vector<std::vector<double>>> fetch(int64_t t_ns);

 private:
  struct Impl;
  explicit PcpSource(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::watch
