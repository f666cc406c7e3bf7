// SPDX-License-Identifier: Apache-2.0
// A main() for fuzz targets where libFuzzer is not available (gcc): runs LLVMFuzzerTestOneInput
// once over every file named on the command line, or every regular file in each directory named
// (not recursive). Arguments starting with '-' are libFuzzer flags and are ignored, so the same
// command line works with both. Exits 1 if an argument cannot be read or no input was found, so
// that a missing corpus does not pass unnoticed.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return false;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // An exact-size heap copy, so that a sanitizer catches any read past the input's end.
  const std::unique_ptr<std::uint8_t[]> data(new std::uint8_t[bytes.size()]);
  std::copy(bytes.begin(), bytes.end(), data.get());
  LLVMFuzzerTestOneInput(data.get(), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t inputs = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.empty() || arg[0] == '-') continue;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(arg, ec)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg, ec)) {
        if (entry.is_regular_file(ec)) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());  // the same order on every run
    } else {
      files.emplace_back(arg);
    }
    if (ec) {
      std::fprintf(stderr, "replay: cannot list %s: %s\n", arg.c_str(), ec.message().c_str());
      ok = false;
    }
    for (const auto& file : files) {
      if (!run_file(file)) {
        ok = false;
        continue;
      }
      ++inputs;
    }
  }
  std::printf("replay: ran %zu inputs\n", inputs);
  if (inputs == 0) std::fprintf(stderr, "replay: no inputs; usage: %s FILE_OR_DIR...\n", argv[0]);
  return ok && inputs > 0 ? 0 : 1;
}
