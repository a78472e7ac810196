// HandOverDesk: where a copy that runs alongside the stream hands its tables over to it (the
// online copy of tables matched later, snapshot/newly_matched.h).
//
// The copy brings its tables up to a transaction boundary `end` and offers them (Make). The reader
// thread of whichever session streams at the time serves the offer between two transactions
// (Serve), at its position `at`:
//   at <= end  the tables are taken: their changes after `end` are streamed, those before are the
//              copy's. Nothing of them is in both and nothing in neither. The checkpoint that says
//              so is saved before the copy hears kTaken;
//   at > end   kPassed: the stream already read past changes the copy does not hold; the copy
//              catches up to a later boundary and offers again.
// No session streaming within the patience given (reconnecting, or the source idle without
// heartbeats): kNoStream, and the offer is withdrawn.
//
// Thread-safe. One offer at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "schema/schema_history.h"

namespace rowbridge::pipeline {

class HandOverDesk {
 public:
  enum class Outcome { kTaken, kPassed, kNoStream };
  struct Offer {
    std::vector<std::string> tables;  // "db.table"
    schema::BinlogPosition end;
  };

  // The copy's thread: offers `offer` and waits up to `patience` for the stream's answer.
  Outcome Make(Offer offer, std::chrono::milliseconds patience);

  // The reader's thread: whether an offer waits (a relaxed load, cheap enough for every boundary).
  bool pending() const { return pending_.load(std::memory_order_relaxed); }
  // The reader's thread, between transactions at `at`: answers the waiting offer, if any. `take`
  // makes the offer's tables streamed and saves the checkpoint; it is called only when
  // at <= end, and an error it throws is the session's (the copy hears kNoStream and offers
  // again to the next session).
  void Serve(const schema::BinlogPosition& at, const std::function<void(const Offer&)>& take);

 private:
  std::mutex mutex_;
  std::condition_variable answered_;
  std::optional<Offer> offer_;
  std::optional<Outcome> outcome_;
  std::atomic<bool> pending_{false};
};

const char* HandOverOutcomeName(HandOverDesk::Outcome outcome);

}  // namespace rowbridge::pipeline
