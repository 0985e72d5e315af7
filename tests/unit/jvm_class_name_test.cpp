#include "collectors/alloc/jvm_class_name.h"

#include <gtest/gtest.h>

namespace {

using hearth::alloc::java_class_name;

TEST(JavaClassName, PlainClassesAreDotted) {
  EXPECT_EQ(java_class_name("java/lang/String"), "java.lang.String");
  EXPECT_EQ(java_class_name("JAlloc$Widget"), "JAlloc$Widget");
  EXPECT_EQ(java_class_name(""), "");
}

TEST(JavaClassName, ArraysAsJavaWritesThem) {
  EXPECT_EQ(java_class_name("[B"), "byte[]");
  EXPECT_EQ(java_class_name("[[I"), "int[][]");
  EXPECT_EQ(java_class_name("[Z"), "boolean[]");
  EXPECT_EQ(java_class_name("[Ljava/lang/Object;"), "java.lang.Object[]");
  EXPECT_EQ(java_class_name("[[Ljava/util/Map$Entry;"), "java.util.Map$Entry[][]");
}

TEST(JavaClassName, WhatIsNoDescriptorKeepsItsBytes) {
  EXPECT_EQ(java_class_name("["), "[");
  EXPECT_EQ(java_class_name("[Q"), "[Q");
  EXPECT_EQ(java_class_name("[BB"), "[BB");
  EXPECT_EQ(java_class_name("[L;"), "[L;");
  EXPECT_EQ(java_class_name("[Ljava/lang/Object"), "[Ljava.lang.Object");
  EXPECT_EQ(java_class_name(std::string_view("a\0b", 3)), std::string("a\0b", 3));
}

}  // namespace
