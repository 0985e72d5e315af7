// Resources embedded at build time (scripts, styles, HTML) from the templates/ folder.
#pragma once

#include <string_view>

namespace hearth::templates {

struct Entry {
  const char* name;
  std::string_view text;
};
extern const Entry kEntries[];  // terminated by {nullptr, {}}

// The text of templates/NAME, e.g. get("flame.js"). A missing name is a build defect: CHECK.
std::string_view get(std::string_view name);

}  // namespace hearth::templates
