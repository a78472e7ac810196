#include "pipeline/hand_over_desk.h"

namespace rowbridge::pipeline {

HandOverDesk::Outcome HandOverDesk::Make(Offer offer, std::chrono::milliseconds patience) {
  std::unique_lock lock(mutex_);
  offer_ = std::move(offer);
  outcome_.reset();
  pending_ = true;
  answered_.wait_for(lock, patience, [&] { return outcome_.has_value(); });
  // Withdrawn under the lock: a Serve that began before the deadline has finished by now (it
  // holds the lock while taking), so the answer is never lost in between.
  pending_ = false;
  offer_.reset();
  const Outcome outcome = outcome_.value_or(Outcome::kNoStream);
  outcome_.reset();
  return outcome;
}

void HandOverDesk::Serve(const schema::BinlogPosition& at,
                         const std::function<void(const Offer&)>& take) {
  std::lock_guard lock(mutex_);
  if (!offer_ || outcome_) return;
  if (offer_->end < at) {
    outcome_ = Outcome::kPassed;
  } else {
    try {
      take(*offer_);
    } catch (...) {
      outcome_ = Outcome::kNoStream;
      pending_ = false;
      answered_.notify_all();
      throw;
    }
    outcome_ = Outcome::kTaken;
  }
  pending_ = false;
  answered_.notify_all();
}

const char* HandOverOutcomeName(HandOverDesk::Outcome outcome) {
  switch (outcome) {
    case HandOverDesk::Outcome::kTaken:
      return "taken";
    case HandOverDesk::Outcome::kPassed:
      return "passed";
    case HandOverDesk::Outcome::kNoStream:
      return "no stream";
  }
  return "?";
}

}  // namespace rowbridge::pipeline
