#pragma once
/// \file include/stereo/data.h
/// The datasets and the evaluation of the `stereo` program, as a library:
///  - load_scene(folder): a Middlebury v2 or MiddEval3 folder, a KITTI training folder or a
///    plain pair, with its ground truth, masks and search range (Scene::range());
///    load_dataset(folder) every scene below it; data_root() the shared data folder
///    (stereo/dataset.h);
///  - evaluate(map, scene, threshold): the bad-pixel percentages per mask, average error and
///    density as one Metrics struct; colorize_disparity() and error_map(): the pictures
///    `stereo eval` writes (stereo/metrics.h);
///  - the image and map files (stereo/io.h).

#include "stereo/dataset.h"
#include "stereo/io.h"
#include "stereo/metrics.h"
