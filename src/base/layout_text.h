// SPDX-License-Identifier: Apache-2.0
// How a message names a layout: "41/10/12 bits in ms with epoch 1735689600000". The state file's
// record holds only the layout's fingerprint, so its refusals name the layouts with this too.
//
// Thread safety: a pure function.
#ifndef COSID_SRC_BASE_LAYOUT_TEXT_H_
#define COSID_SRC_BASE_LAYOUT_TEXT_H_

#include <string>

#include "cosid/layout.h"

namespace cosid {
namespace detail {

std::string describe_layout(const Layout& layout);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_BASE_LAYOUT_TEXT_H_
