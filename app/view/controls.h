#pragma once
/// \file app/view/controls.h
/// The Controls panel: the error line, the input, method / backend / levels, every parameter
/// of the method and of the backend as a widget of its type, the sequence's play / step / loop,
/// and the toggles of the cost curve and the pass inspector.

#include <imgui.h>

#include "app/view/panels.h"

namespace stereo::view {

void draw_controls(const ViewerState& state, UiState& ui, ImVec2 pos);

/// What a parameter widget hands to `--set` for a float: the shortest text that reads back as
/// the same float ("%.9g" round-trips every float).
std::string float_text(float v);

}  // namespace stereo::view
