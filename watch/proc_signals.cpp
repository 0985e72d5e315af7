#include "watch/proc_signals.h"
namespace hearth::watch {
ProcSample ProcSignals::read(const std::vector<pid_t>&, int64_t t_ns) { return {t_ns, 0, {}}; }
std::optional<double> signal_value(const Rule&, const ProcSample&) { return std::nullopt; }
}
