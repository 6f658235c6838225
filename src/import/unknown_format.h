#pragma once
// What a file that no importer recognises looks like, for the "not a trace" message: a report
// only NVIDIA's tools read, an archive, another tool's non-timeline output, or unknown bytes.

#include <string>

#include "base/byte_source.h"

namespace gpuscope::import {

std::string WhatItIs(const std::string& path, const base::FileSniff& sniff);

}  // namespace gpuscope::import
