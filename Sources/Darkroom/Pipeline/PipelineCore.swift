import DarkroomImaging

/// What the pipeline coordinates, as one value: the jobs for processed
/// keys, the jobs for sources, and the source bytes held. Each part is a
/// state machine of its own (``JobTable``, ``SourceBytesWindow``) whose
/// methods return what to do; here they sit together behind one lock.
struct PipelineState {
    typealias Jobs<Value: Sendable> = JobTable<String, Value, CheckedContinuation<Value, any Error>>

    var processJobs = Jobs<ImageResponse>()
    var dataJobs = Jobs<SourceData>()
    var sourceBytes: SourceBytesWindow<CheckedContinuation<Void, Never>>
}

/// The pipeline's one lock for its coordination: every join, leave,
/// priority change, refusal and end of a job, and every byte reserved or
/// released, is one call under it. What a call returns (continuations to
/// resume, a task to cancel, followers to tell) is done after it lets go,
/// by ``JobRegistry`` and ``SourceBytesGate``, the two views over it.
final class PipelineCore: Sendable {
    let state: Locked<PipelineState>

    init(sourceByteLimit: Int, downloads: Int) {
        state = Locked(PipelineState(sourceBytes: SourceBytesWindow(limit: sourceByteLimit, downloadsBeforeSizeKnown: downloads)))
    }
}
