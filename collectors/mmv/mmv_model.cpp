#include "collectors/mmv/mmv_model.h"

#include <string_view>

namespace hearth::mmv {

namespace {

void append_dim(std::string* out, int dim, const char* unit) {
  if (dim == 0) return;
  if (!out->empty()) out->push_back(' ');
  out->append(unit);
  if (dim != 1) {
    out->push_back('^');
    out->append(std::to_string(dim));
  }
}

}  // namespace

std::string units_text(const Units& u) {
  static const char* const space[] = {"byte",  "Kbyte", "Mbyte", "Gbyte", "Tbyte",
                                      "Pbyte", "Ebyte", "Zbyte", "Ybyte"};
  static const char* const time[] = {"nanosec", "microsec", "millisec", "sec", "min", "hour"};
  const char* sp = u.scale_space >= 0 && u.scale_space <= 8 ? space[u.scale_space] : "?byte";
  const char* tm = u.scale_time >= 0 && u.scale_time <= 5 ? time[u.scale_time] : "?sec";
  std::string count = "count";
  if (u.scale_count != 0) count += " x 10^" + std::to_string(u.scale_count);
  // Positive dimensions first, then " / " and the negative ones (PCP's pmUnitsStr order).
  std::string num, den;
  if (u.dim_space > 0) append_dim(&num, u.dim_space, sp);
  if (u.dim_time > 0) append_dim(&num, u.dim_time, tm);
  if (u.dim_count > 0) append_dim(&num, u.dim_count, count.c_str());
  if (u.dim_space < 0) append_dim(&den, -u.dim_space, sp);
  if (u.dim_time < 0) append_dim(&den, -u.dim_time, tm);
  if (u.dim_count < 0) append_dim(&den, -u.dim_count, count.c_str());
  if (den.empty()) return num;
  std::string r;
  r.append(num.empty() ? std::string_view("1") : std::string_view(num));
  r.append(" / ");
  r.append(den);
  return r;
}

}  // namespace hearth::mmv
