// gzip in memory, through zlib: what pprof files are wrapped in. Inflating is bounded: a gzip
// bomb (a few KiB that inflate to gigabytes) stops at the limit with an error, having held at
// most that much.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.h"

namespace hearth::profile {

// Whether DATA starts with gzip's magic bytes (1f 8b).
bool is_gzip(std::string_view data);

// DATA compressed as one gzip member.
Result<std::string> gzip(std::string_view data);

// The bytes of gzip DATA (one member or several concatenated, as `cat a.gz b.gz` makes), at most
// MAX_BYTES of them: past that, an error that says the limit. Truncated or corrupt data: an error.
Result<std::string> gunzip(std::string_view data, size_t max_bytes);

}  // namespace hearth::profile
