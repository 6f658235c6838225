#pragma once
// What the traced program is written with (PyTorch or plain CUDA/HIP), so that health notes and
// advice speak in the program's own words.

#include "model/trace.h"

namespace gpuscope::analysis {

struct Ecosystem {
  bool framework = false;  // PyTorch ops (aten::) or Python frames recorded
  bool hip = false;        // an AMD GPU or HIP runtime calls
};
Ecosystem DetectEcosystem(const model::Trace& t);

}  // namespace gpuscope::analysis
