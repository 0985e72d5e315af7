#include "bin/hearth/profile_output.h"

#include "render/profile/folded_reader.h"
#include "render/profile/pprof_writer.h"
#include "render/profile/speedscope_writer.h"

namespace hearth::cli {

bool is_pprof_path(std::string_view path) {
  return path.ends_with(".pb.gz") || path.ends_with(".pprof");
}

Result<void> write_folded_as_pprof(std::string_view text, const std::string& path,
                                   double period_ns) {
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.format = profile::InputFormat::kFolded});
  reader.read_text(text);
  tree.finalize();
  return profile::write_pprof(tree, path, {.period_ns = period_ns});
}

Result<void> write_folded_as_speedscope(std::string_view text, const std::string& path) {
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.format = profile::InputFormat::kFolded});
  reader.read_text(text);
  tree.finalize();
  return profile::write_speedscope(tree, path);
}

}  // namespace hearth::cli
