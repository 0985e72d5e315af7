// Errors as values: every fallible function across a module boundary returns Result<T>.
#pragma once

#include <cerrno>
#include <cstring>
#include <expected>
#include <string>
#include <utility>

namespace hearth {

struct Error {
  std::string message;  // one line, lower case, no trailing period: "cannot open x: No such file"
  int errnum = 0;       // errno when the cause was a syscall, else 0
};

template <typename T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string message, int errnum = 0) {
  return std::unexpected<Error>(Error{std::move(message), errnum});
}

// A failed syscall: "WHAT: strerror(errnum)". Pass errno copied right after the call.
inline std::unexpected<Error> fail_errno(const std::string& what, int errnum) {
  return fail(what + ": " + std::strerror(errnum), errnum);
}

}  // namespace hearth

#define HEARTH_CONCAT_INNER(a, b) a##b
#define HEARTH_CONCAT(a, b) HEARTH_CONCAT_INNER(a, b)

// RETURN_IF_ERROR(expr): expr yields Result<void>/Result<T>; on error return its error.
#define RETURN_IF_ERROR(expr)                                                           \
  do {                                                                                  \
    if (auto hearth_r_ = (expr); !hearth_r_) return std::unexpected(hearth_r_.error()); \
  } while (0)

// ASSIGN_OR_RETURN(lhs, expr): lhs = *expr, or return the error.
#define ASSIGN_OR_RETURN(lhs, expr)                                     \
  auto HEARTH_CONCAT(hearth_r_, __LINE__) = (expr);                     \
  if (!HEARTH_CONCAT(hearth_r_, __LINE__))                              \
    return std::unexpected(HEARTH_CONCAT(hearth_r_, __LINE__).error()); \
  lhs = std::move(*HEARTH_CONCAT(hearth_r_, __LINE__))
