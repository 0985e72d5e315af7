// The SVG backend: a Scene -> one self-contained SVG document, with the interactive script and
// style of the scene's kind (templates/KIND.js, templates/KIND.css) embedded. The document is a
// correct static picture without the script. templates/FLAME_DOM.md is the contract with the
// flamegraph script.
#pragma once

#include <string>

#include "common/result.h"
#include "render/scene/scene.h"

namespace hearth::svg {

std::string to_svg(const scene::Scene& scene);
Result<void> write_svg(const scene::Scene& scene, const std::string& path);

}  // namespace hearth::svg
