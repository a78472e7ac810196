#include "common/write_fence.h"

#include <atomic>

namespace rowbridge {

namespace {
std::atomic<WriteFence*> installed{nullptr};
}  // namespace

void InstallWriteFence(WriteFence* fence) {
  installed.store(fence, std::memory_order_release);
}

void CheckWriteFence() {
  if (WriteFence* fence = installed.load(std::memory_order_acquire)) fence->Check();
}

}  // namespace rowbridge
