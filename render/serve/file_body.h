// Answering a GET or HEAD with a regular file: the whole file (200), the byte ranges the
// client asked for (206, see byte_ranges.h), or 416.
//
// Memory: the body is never held whole. It is streamed from the file in slices of kSliceBytes
// (httplib's content providers), so one response holds one slice (plus a gzip state when it is
// compressed) whatever the file size or the Range field: the server's memory is bounded by the
// number of connections, not by what they ask.
//
// Compression: only whole-file answers, only gzip (see server.cpp on brotli), only for text
// types, streamed (chunked). A partial answer is never compressed: its Content-Range counts
// bytes of the file as stored. Whole-file answers carry `Accept-Ranges: bytes`.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <string>

#include "common/unique_fd.h"

namespace hearth::serve {

inline constexpr size_t kSliceBytes = 64 * 1024;

// True for the types httplib 0.11 compresses (text/*, SVG, JSON, JavaScript, XML, XHTML).
bool is_compressible_type(const std::string& content_type);

// Sets RES (status, headers, body or content provider) to answer REQ with FILE, a regular file
// of SIZE bytes when it was stat'ed, whose type is CONTENT_TYPE. The Range field is read from
// kRangeField (connection.h) and honoured for GET only, and not when If-Range is present (this
// server sends no validators, so no If-Range can match). RES owns FILE from now on. Should the
// file shrink before it is sent, the connection is closed short of the promised length.
void respond_with_file(const httplib::Request& req, httplib::Response& res, UniqueFd file,
                       uint64_t size, const std::string& content_type);

}  // namespace hearth::serve
