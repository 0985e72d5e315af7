// Writes an MMV file of N metrics with libpcp_mmv (for mmv_bench.sh): N u64 counters named
// bench.metric.I, one double gauge, and one string, into $PCP_TMP_DIR/mmv/NAME.
//   gen_mmv NAME N
// clang-format off
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
// clang-format on

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: gen_mmv NAME N\n");
    return 2;
  }
  static std::string name = argv[1];
  const int n = std::atoi(argv[2]);
  // The registry keeps the char* it is given: the strings live until exit.
  static std::vector<std::string> names;
  names.reserve(n + 2);
  mmv_registry_t* r = mmv_stats_registry(name.c_str(), 0, static_cast<mmv_stats_flags_t>(0));
  if (!r) return 1;
  for (int i = 0; i < n; ++i) {
    names.push_back("bench.metric." + std::to_string(i));
    mmv_stats_add_metric(r, names.back().c_str(), i + 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
                         MMV_UNITS(0, 0, 1, 0, 0, 0), 0, "a counter", "a counter");
  }
  void* m = mmv_stats_start(r);
  if (!m) return 1;
  for (int i = 0; i < n; ++i) mmv_stats_add(m, names[i].c_str(), nullptr, i * 3.0);
  return 0;
}
