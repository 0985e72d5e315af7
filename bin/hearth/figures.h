// Numbers in the verbs' summaries: plain digits people read, and the figures of a list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::cli {

// V in plain digits: thousands separated, about three significant digits below 100
// (1180 -> "1,180", 0.1 -> "0.1", 0.0123 -> "0.0123"), never an exponent.
std::string plain_number(double v);

// N with thousands separated: 1234567 -> "1,234,567".
std::string thousands(uint64_t n);

double median_of(std::vector<double> values);  // 0 when empty
double max_of(const std::vector<double>& values);

}  // namespace hearth::cli
