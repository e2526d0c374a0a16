"""The server's pool of heavy work: one scheduler shared by every session (:mod:`.scheduler`), whose slots compute
in worker processes (:mod:`.workers`)."""

from stviz.pool.scheduler import (ABANDONED_AFTER, BACKGROUND, CANCELLED, FINISHED, INTERACTIVE, QUEUED, RUNNING,
                                  UNKNOWN_SECONDS, WARM, Job, JobCancelled, JobReporter, JobTooBig, Scheduler,
                                  available_memory, default_scheduler, default_workers)
from stviz.pool.workers import WorkerDied, portable, processes_enabled

__all__ = ["ABANDONED_AFTER", "BACKGROUND", "CANCELLED", "FINISHED", "INTERACTIVE", "QUEUED", "RUNNING",
           "UNKNOWN_SECONDS", "WARM", "Job", "JobCancelled", "JobReporter", "JobTooBig", "Scheduler", "WorkerDied",
           "available_memory", "default_scheduler", "default_workers", "portable", "processes_enabled"]
