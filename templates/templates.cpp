#include "templates/templates.h"

#include "common/check.h"

namespace hearth::templates {

std::string_view get(std::string_view name) {
  for (const Entry* e = kEntries; e->name != nullptr; ++e) {
    if (name == e->name) return e->text;
  }
  HEARTH_CHECK(!"template not embedded");
  return {};
}

}  // namespace hearth::templates
