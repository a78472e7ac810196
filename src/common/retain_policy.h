// RetainPolicy: whether a buffer reused item after item (a protocol packet, a batch of rows) keeps
// the capacity its last item made it grow to.
//
// Such a buffer grows to its largest item and, left alone, keeps that size for the rest of the
// run: one 100 MB row would pin 100 MB in every buffer it passed through, long after it was
// written. Kept are up to `floor` bytes, and up to twice the largest use of the recent past (this
// window of time and the one before; for a first use, that use itself), so a stream of big items
// does not reallocate for each one. Anything larger was grown by an outlier, or by items that
// stopped coming, and is freed once the current use is over. An outlier that is the very first
// use is therefore kept until it is no longer recent (at most two windows).
//
// Not thread-safe: one policy per buffer, used by the buffer's owner.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace rowbridge {

class RetainPolicy {
 public:
  using Clock = std::chrono::steady_clock;

  // `floor`: capacity always kept; `window`: how long a use counts as recent (one to two windows).
  RetainPolicy(size_t floor, std::chrono::milliseconds window) : floor_(floor), window_(window) {}

  // Records a use of `used` bytes, at `now`, by a buffer that now holds `capacity` bytes. True
  // when the buffer should be freed once this use is over.
  bool ReleaseAfter(size_t used, size_t capacity, Clock::time_point now = Clock::now()) {
    if (now - window_start_ >= window_) {
      // A new window; the one that ended is the previous one only if it ended just now.
      previous_max_ = now - window_start_ < 2 * window_ ? current_max_ : 0;
      current_max_ = 0;
      window_start_ = now;
    }
    // The recent uses before this one; a first use (none recent) is its own measure, so that a
    // buffer is not grown twice (its pages faulted in again) for no outlier at all.
    size_t recent = previous_max_ > current_max_ ? previous_max_ : current_max_;
    if (recent == 0) recent = used;
    if (used > current_max_) current_max_ = used;
    return capacity > floor_ && capacity / 2 > recent;
  }

 private:
  size_t floor_;
  std::chrono::milliseconds window_;
  Clock::time_point window_start_{};
  size_t previous_max_ = 0;
  size_t current_max_ = 0;
};

// The plain rule, for a scratch buffer used now and then (a big command, a compressed event): it
// keeps up to `keep` bytes of capacity, and anything larger is freed.
inline void ReleaseIfLarger(std::string& buffer, size_t keep) {
  if (buffer.capacity() > keep) std::string().swap(buffer);
}

}  // namespace rowbridge
