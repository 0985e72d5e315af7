#include "watch/pcp_source.h"

#include <pcp/pmapi.h>

#include <map>

namespace hearth::watch {
namespace {

std::string pcp_error(int code) {
  char buf[PM_MAXERRMSGLEN];
  return pmErrStr_r(code, buf, sizeof buf);
}

}  // namespace

struct PcpSource::Impl {
  struct Metric {
    pmID id = PM_ID_NULL;
    pmDesc desc{};
    int instance = -1;  // one instance, or -1 for all of them
    // Counters: the last values by instance, and when (ns).
    std::map<int, double> last;
    int64_t last_ns = 0;
  };
  std::string host;
  int context = -1;
  std::vector<Metric> metrics;

  ~Impl() {
    if (context >= 0) pmDestroyContext(context);
  }
};

PcpSource::PcpSource(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PcpSource::PcpSource(PcpSource&&) noexcept = default;
PcpSource& PcpSource::operator=(PcpSource&&) noexcept = default;
PcpSource::~PcpSource() = default;

Result<PcpSource> PcpSource::connect(const std::string& host) {
  auto impl = std::make_unique<Impl>();
  impl->host = host;
  impl->context = pmNewContext(PM_CONTEXT_HOST, host.c_str());
  if (impl->context < 0) {
    return fail("cannot reach PCP's pmcd on " + host + ": " + pcp_error(impl->context) +
                " (is pmcd running?)");
  }
  return PcpSource(std::move(impl));
}

Result<size_t> PcpSource::add(const std::string& metric, const std::string& instance) {
  if (pmUseContext(impl_->context) < 0) return fail("lost the PCP context of " + impl_->host);
  Impl::Metric m;
  const char* name = metric.c_str();
  int rc = pmLookupName(1, &name, &m.id);
  if (rc < 0 || m.id == PM_ID_NULL) {
    return fail("pcp:" + metric + ": no such metric on " + impl_->host +
                (rc < 0 ? " (" + pcp_error(rc) + ")" : std::string()));
  }
  rc = pmLookupDesc(m.id, &m.desc);
  if (rc < 0) return fail("pcp:" + metric + ": " + pcp_error(rc));
  switch (m.desc.type) {
    case PM_TYPE_32:
    case PM_TYPE_U32:
    case PM_TYPE_64:
    case PM_TYPE_U64:
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE:
      break;
    default:
      return fail("pcp:" + metric + ": not a number (a rule compares numbers)");
  }
  if (!instance.empty()) {
    if (m.desc.indom == PM_INDOM_NULL)
      return fail("pcp:" + metric + ": has no instances, so not [" + instance + "]");
    m.instance = pmLookupInDom(m.desc.indom, instance.c_str());
    if (m.instance < 0)
      return fail("pcp:" + metric + ": no instance named '" + instance + "' on " + impl_->host);
  }
  impl_->metrics.push_back(std::move(m));
  return impl_->metrics.size() - 1;
}

Result<std::vector<std::vector<double>>> PcpSource::fetch(int64_t t_ns) {
  std::vector<std::vector<double>> out(impl_->metrics.size());
  if (impl_->metrics.empty()) return out;
  if (pmUseContext(impl_->context) < 0) return fail("lost the PCP context of " + impl_->host);
  std::vector<pmID> ids;
  for (const Impl::Metric& m : impl_->metrics) ids.push_back(m.id);
  pmResult* result = nullptr;
  const int rc = pmFetch(static_cast<int>(ids.size()), ids.data(), &result);
  if (rc < 0) {
    return fail("cannot fetch from PCP's pmcd on " + impl_->host + ": " + pcp_error(rc));
  }
  for (int i = 0; i < result->numpmid && i < static_cast<int>(out.size()); ++i) {
    Impl::Metric& m = impl_->metrics[i];
    const pmValueSet* vs = result->vset[i];
    std::map<int, double> now;
    for (int j = 0; vs->numval > 0 && j < vs->numval; ++j) {
      if (m.instance >= 0 && vs->vlist[j].inst != m.instance) continue;
      pmAtomValue a{};
      if (pmExtractValue(vs->valfmt, &vs->vlist[j], m.desc.type, &a, PM_TYPE_DOUBLE) < 0) continue;
      now[vs->vlist[j].inst] = a.d;
    }
    if (m.desc.sem == PM_SEM_COUNTER) {
      // A rate per second against the last fetch; an instance new since then (or a counter
      // that went back: a wrap, a restart) has none yet.
      const double seconds = static_cast<double>(t_ns - m.last_ns) / 1e9;
      for (const auto& [inst, v] : now) {
        auto it = m.last.find(inst);
        if (it != m.last.end() && seconds > 0 && v >= it->second)
          out[i].push_back((v - it->second) / seconds);
      }
      m.last = std::move(now);
      m.last_ns = t_ns;
    } else {
      for (const auto& [inst, v] : now) out[i].push_back(v);
    }
  }
  pmFreeResult(result);
  return out;
}

}  // namespace hearth::watch
