#include "collectors/alloc/jvm_class_name.h"

#include <algorithm>

namespace hearth::alloc {
namespace {

// The Java name of a primitive array's element descriptor, or null.
const char* primitive_name(char c) {
  switch (c) {
    case 'B':
      return "byte";
    case 'C':
      return "char";
    case 'D':
      return "double";
    case 'F':
      return "float";
    case 'I':
      return "int";
    case 'J':
      return "long";
    case 'S':
      return "short";
    case 'Z':
      return "boolean";
    default:
      return nullptr;
  }
}

std::string dotted(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '/', '.');
  return out;
}

}  // namespace

std::string java_class_name(std::string_view internal) {
  size_t dims = 0;
  while (dims < internal.size() && internal[dims] == '[') ++dims;
  if (dims == 0) return dotted(internal);
  const std::string_view element = internal.substr(dims);
  std::string base;
  if (element.size() == 1 && primitive_name(element[0]) != nullptr) {
    base = primitive_name(element[0]);
  } else if (element.size() >= 3 && element.front() == 'L' && element.back() == ';') {
    base = dotted(element.substr(1, element.size() - 2));
  } else {
    return dotted(internal);  // not a descriptor: as it came
  }
  for (size_t i = 0; i < dims; ++i) base += "[]";
  return base;
}

}  // namespace hearth::alloc
