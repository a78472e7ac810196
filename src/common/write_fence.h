// The process-wide gate every write to the target passes: an INSERT or DDL sent to ClickHouse
// (clickhouse::Client) and a checkpoint or copy progress saved to a file. Under `ha`, a process
// may write only while it holds its job's leader lock (ha/leader_lock.h), which installs itself
// here as the fence; without `ha` there is no fence and writes pass.
//
// It is one gate for the whole process, rather than a parameter handed to every writer, so that
// no write path (stream, copy, DDL, state store) can forget it.
#pragma once

namespace rowbridge {

class WriteFence {
 public:
  virtual ~WriteFence() = default;
  // Returns when this process may write now; throws Error(kFenced) when it may not (it lost its
  // leader lock). May block briefly while a lease that just ran out is being renewed.
  virtual void Check() = 0;
};

// Installs `fence` (nullptr: none). The fence must outlive its installation.
void InstallWriteFence(WriteFence* fence);
// Checks the installed fence; returns at once when there is none.
void CheckWriteFence();

}  // namespace rowbridge
