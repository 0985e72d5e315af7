// A Java class's name as the JVM's object__alloc probe gives it (its internal form:
// "java/lang/String", "[B", "[[Ljava/lang/Object;") as a Java programmer writes it
// ("java.lang.String", "byte[]", "java.lang.Object[][]"): the leaf frame of a JVM allocation
// stack. Any input is taken: what is not a well-formed descriptor keeps its bytes ('/' as '.').
#pragma once

#include <string>
#include <string_view>

namespace hearth::alloc {

std::string java_class_name(std::string_view internal);

}  // namespace hearth::alloc
