#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "pipeline/hand_over_desk.h"

namespace rowbridge::pipeline {
namespace {

using namespace std::chrono_literals;
using Outcome = HandOverDesk::Outcome;

const schema::BinlogPosition kEnd{"bin.000002", 500};

// Serves the desk like a reader between transactions at `at`, until an offer was answered.
class FakeReaderLoop {
 public:
  FakeReaderLoop(HandOverDesk& desk, schema::BinlogPosition at, bool fail = false)
      : thread_([this, &desk, at, fail] {
          while (!done_) {
            if (desk.pending()) {
              try {
                desk.Serve(at, [&](const HandOverDesk::Offer& offer) {
                  if (fail) throw std::runtime_error("saving the checkpoint failed");
                  taken_tables = offer.tables;
                });
              } catch (const std::runtime_error&) {
                threw = true;
              }
            }
            std::this_thread::sleep_for(1ms);
          }
        }) {}
  ~FakeReaderLoop() {
    done_ = true;
    thread_.join();
  }
  std::vector<std::string> taken_tables;
  std::atomic<bool> threw{false};

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

TEST(PipelineHandOverDesk, AReaderAtOrBeforeTheEndTakesTheTables) {
  HandOverDesk desk;
  {
    FakeReaderLoop reader(desk, {"bin.000002", 120});
    EXPECT_EQ(desk.Make({{"db.t"}, kEnd}, 10s), Outcome::kTaken);
    EXPECT_EQ(reader.taken_tables, std::vector<std::string>{"db.t"});
  }
  FakeReaderLoop at_end(desk, kEnd);
  EXPECT_EQ(desk.Make({{"db.u"}, kEnd}, 10s), Outcome::kTaken);
  EXPECT_FALSE(desk.pending());
}

TEST(PipelineHandOverDesk, AReaderPastTheEndDeclines) {
  HandOverDesk desk;
  FakeReaderLoop reader(desk, {"bin.000003", 4});
  EXPECT_EQ(desk.Make({{"db.t"}, kEnd}, 10s), Outcome::kPassed);
  EXPECT_TRUE(reader.taken_tables.empty());
}

TEST(PipelineHandOverDesk, NoReaderMeansNoStreamAndTheOfferIsWithdrawn) {
  HandOverDesk desk;
  EXPECT_EQ(desk.Make({{"db.t"}, kEnd}, 50ms), Outcome::kNoStream);
  EXPECT_FALSE(desk.pending());
  // A reader that comes later finds nothing to serve.
  bool called = false;
  desk.Serve({"bin.000001", 4}, [&](const HandOverDesk::Offer&) { called = true; });
  EXPECT_FALSE(called);
}

TEST(PipelineHandOverDesk, ATakeThatFailsIsNotTaken) {
  HandOverDesk desk;
  FakeReaderLoop reader(desk, {"bin.000001", 4}, /*fail=*/true);
  EXPECT_EQ(desk.Make({{"db.t"}, kEnd}, 10s), Outcome::kNoStream);
  // The desk answers before the error leaves Serve on the reader's thread.
  for (int i = 0; i < 5000 && !reader.threw; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(reader.threw) << "the error is the reader's session's";
}

}  // namespace
}  // namespace rowbridge::pipeline
