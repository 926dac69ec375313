#pragma once
/// \file include/stereo/data.h
/// The datasets and the evaluation of the `stereo` program, as a library (the suite's data
/// layer, app/dataset.h, app/metrics.h, app/protocol.h):
///  - load_scene(folder): a Middlebury v2 or MiddEval3 folder, a KITTI training folder or a
///    plain pair, with its ground truth, masks and search range (Scene::range());
///    load_dataset(folder) every scene below it; data_root() the shared data folder;
///  - evaluate(map, scene, threshold): the bad-pixel percentages per mask, average error and
///    density as one Metrics struct (scored_map() first applies a ScoreProtocol: the map as
///    the paper's benchmark received it, or as computed);
///  - colorize_disparity() and error_map(): the pictures `stereo eval` writes.

#include "app/dataset.h"
#include "app/metrics.h"
#include "app/protocol.h"
#include "stereo/io.h"
