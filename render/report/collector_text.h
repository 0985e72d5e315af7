// The report's collectors table in words: report.json's figures of one collector ("samples",
// "stall_max_ms", …) as sentences with units, for people. report.json keeps the keys for
// programs.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace hearth::report {

// FIGURES: report.json's collectors.COLLECTOR object ("stacks", "sched", "mmv"). The keys this
// knows become sentences ("20 samples at 10 Hz of up to 9 threads: 180 stacks."); any other
// scalar key is listed after them as "key value", so nothing recorded is hidden. "status",
// "message" and arrays or objects are left out (the table shows status and message).
std::string collector_text(std::string_view collector, const nlohmann::json& figures);

}  // namespace hearth::report
