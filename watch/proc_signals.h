// TEMP STUB (replaced by the helper's)
#pragma once
#include <sys/types.h>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "watch/rules.h"
namespace hearth::watch {
struct ThreadShares { pid_t tid; pid_t pid; std::string name; char state; double running = 0, runnable = 0, sleeping = 0, blocked = 0; double in_state_s = 0; };
struct ProcSample { int64_t t_ns; double cpu = 0; std::vector<ThreadShares> threads; };
class ProcSignals { public: ProcSample read(const std::vector<pid_t>& pids, int64_t t_ns); };
std::optional<double> signal_value(const Rule& rule, const ProcSample& sample);
}
