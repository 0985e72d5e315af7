// Values with units for the metrics chart: PCP unit strings ("Kbyte / sec", "count x 10^3",
// "microsec") -> a base unit (bytes, seconds, counts) and a scale, and axis ticks and labels in
// that unit with SI (binary for bytes) prefixes: "1.5 MiB/s", "250 ms", "12k", "40%".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hearth::charts {

enum class BaseUnit : uint8_t {
  kNumber,   // dimensionless or counts: "12k"
  kBytes,    // "1.5 MiB"
  kSeconds,  // "250 ms"
  kPercent,  // a fraction shown as percent: "40%" (time counters as rates: busy time per sec)
  kOther,    // a unit this code does not know: "12k widgets"
};

struct ValueUnit {
  BaseUnit base = BaseUnit::kNumber;
  double factor = 1;         // value in PCP units × factor = value in the base unit
  bool per_second = false;   // "/s" after the unit
  std::string other;         // kOther: the unit's text
};

// PCP_UNITS as `hearth mmv` writes them (units_text); anything not understood is kOther.
ValueUnit parse_pcp_units(std::string_view pcp_units);
// The unit of a counter's rate (per second): bytes -> bytes/s, time -> percent of time, …
ValueUnit rate_unit(const ValueUnit& unit);

// V (in the base unit) for people, 3 significant digits: "1.5 MiB/s", "-2k", "0".
std::string format_value(double v, const ValueUnit& unit);

// Round ticks covering [LO, HI] (base unit), at most about MAX_TICKS intervals: steps of
// 1, 2 or 5 × 10^k (bytes: × 1024^p). Ascending; first <= LO, last >= HI.
std::vector<double> value_ticks(double lo, double hi, const ValueUnit& unit, int max_ticks);

}  // namespace hearth::charts
