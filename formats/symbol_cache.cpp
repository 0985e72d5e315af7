#include "formats/symbol_cache.h"

#include <charconv>
#include <cstdio>

namespace hearth::symbol_cache {
namespace {

void append_escaped(std::string* out, std::string_view s) {
  for (char c : s) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '\t') {
      *out += "\\t";
    } else if (c == '\n') {
      *out += "\\n";
    } else {
      *out += c;
    }
  }
}

// Unescapes S into OUT; false on a dangling or unknown escape.
bool unescape(std::string_view s, std::string* out) {
  out->clear();
  out->reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      *out += s[i];
      continue;
    }
    if (++i == s.size()) return false;
    switch (s[i]) {
      case '\\': *out += '\\'; break;
      case 't': *out += '\t'; break;
      case 'n': *out += '\n'; break;
      default: return false;
    }
  }
  return true;
}

void append_hex(std::string* out, uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  *out += buf;
}

bool parse_hex(std::string_view s, uint64_t* v) {
  if (s.empty() || s.size() > 16) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

bool name_fits(std::string_view name) { return !name.empty() && name.size() <= kMaxNameBytes; }

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t at = 0;
  while (true) {
    const size_t tab = line.find('\t', at);
    fields.push_back(line.substr(at, tab == std::string_view::npos ? tab : tab - at));
    if (tab == std::string_view::npos) break;
    at = tab + 1;
  }
  return fields;
}

}  // namespace

uint64_t identity_hash(std::string_view identity) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : identity) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string write_text(const Entry& entry) {
  std::string out(kMagic);
  out += "\nidentity\t";
  append_escaped(&out, entry.identity);
  out += '\n';
  size_t lines = 0;
  for (const Address& a : entry.addresses) {
    if (lines == kMaxLines) break;
    bool fits = !a.frames.empty() && a.frames.size() <= kMaxFramesPerLine;
    for (const CachedFrame& f : a.frames) fits = fits && name_fits(f.name);
    if (!fits) continue;
    out += "a\t";
    append_hex(&out, a.offset);
    for (const CachedFrame& f : a.frames) {
      out += f.inlined ? "\tI" : "\tF";
      append_escaped(&out, f.name);
    }
    out += '\n';
    ++lines;
  }
  for (const TailCall& t : entry.tails) {
    if (lines == kMaxLines) break;
    bool fits = t.frames.size() <= kMaxFramesPerLine;
    for (const std::string& f : t.frames) fits = fits && name_fits(f);
    if (!fits) continue;
    out += "t\t";
    append_hex(&out, t.caller_offset);
    out += '\t';
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(t.callee_module));
    out += buf;
    out += '\t';
    append_hex(&out, t.callee_offset);
    for (const std::string& f : t.frames) {
      out += "\tF";
      append_escaped(&out, f);
    }
    out += '\n';
    ++lines;
  }
  out += "end\t" + std::to_string(lines) + "\n";
  return out;
}

Result<Entry> parse(std::string_view text) {
  Entry entry;
  size_t line_no = 0;
  size_t at = 0;
  size_t counted = 0;
  bool ended = false;
  auto bad = [&line_no](const std::string& why) {
    return fail("line " + std::to_string(line_no) + ": " + why);
  };
  std::string name;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) {
      ++line_no;
      return bad("no line end (cut short)");
    }
    const std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    ++line_no;
    if (ended) return bad("text after the end line");
    if (line_no == 1) {
      if (line != kMagic) return bad("not a hearth symbol cache entry (version 1)");
      continue;
    }
    const std::vector<std::string_view> f = split_tabs(line);
    if (line_no == 2) {
      if (f.size() != 2 || f[0] != "identity" || f[1].size() > kMaxIdentityBytes * 2 ||
          !unescape(f[1], &entry.identity) || entry.identity.empty() ||
          entry.identity.size() > kMaxIdentityBytes)
        return bad("expected the identity line");
      continue;
    }
    if (f[0] == "end") {
      uint64_t n = 0;
      auto [p, ec] = std::from_chars(f.size() == 2 ? f[1].data() : nullptr,
                                     f.size() == 2 ? f[1].data() + f[1].size() : nullptr, n);
      if (f.size() != 2 || f[1].empty() || ec != std::errc() || p != f[1].data() + f[1].size())
        return bad("bad end line");
      if (n != counted) return bad("the end line counts " + std::to_string(n) + " lines, not " +
                                   std::to_string(counted));
      ended = true;
      continue;
    }
    if (++counted > kMaxLines) return bad("too many lines");
    if (f[0] == "a") {
      Address a;
      if (f.size() < 3 || f.size() - 2 > kMaxFramesPerLine || !parse_hex(f[1], &a.offset))
        return bad("bad address line");
      for (size_t i = 2; i < f.size(); ++i) {
        const char kind = f[i].empty() ? '\0' : f[i][0];
        if ((kind != 'F' && kind != 'I') || !unescape(f[i].substr(1), &name) ||
            !name_fits(name))
          return bad("bad frame");
        a.frames.push_back({name, kind == 'I'});
      }
      entry.addresses.push_back(std::move(a));
    } else if (f[0] == "t") {
      TailCall t;
      if (f.size() < 4 || f.size() - 4 > kMaxFramesPerLine || !parse_hex(f[1], &t.caller_offset) ||
          f[2].size() != 16 || !parse_hex(f[2], &t.callee_module) ||
          !parse_hex(f[3], &t.callee_offset))
        return bad("bad tail-call line");
      for (size_t i = 4; i < f.size(); ++i) {
        if (f[i].empty() || f[i][0] != 'F' || !unescape(f[i].substr(1), &name) ||
            !name_fits(name))
          return bad("bad frame");
        t.frames.push_back(name);
      }
      entry.tails.push_back(std::move(t));
    } else {
      return bad("unknown line");
    }
  }
  if (line_no < 2) return fail("line " + std::to_string(line_no + 1) + ": cut short");
  if (!ended) return fail("line " + std::to_string(line_no + 1) + ": no end line (cut short)");
  return entry;
}

}  // namespace hearth::symbol_cache
