public import Foundation
import Tracing

/// Turns source bytes into processed, encoded bytes with libvips.
///
/// Decoding is lazy: the header is read first and checked against the limits,
/// the decoder shrinks on load when the first step is a downscale, and the
/// pixels are computed once, as the encoder pulls them.
///
/// ```swift
/// let processor = ImageProcessor()
/// let thumbnail = try await processor.process(data, options: ProcessingOptions(
///     operations: [.resize(Resize(width: 600, height: 600)), .sepia(intensity: 0.8)]))
/// ```
///
/// Runs on the processor's ``BlockingExecutor``, never on the caller's thread.
public struct ImageProcessor: Sendable {
    public let executor: BlockingExecutor

    public init(executor: BlockingExecutor = .shared) {
        self.executor = executor
    }

    /// Processes `data` as `options` say.
    ///
    /// Cancelling the calling task stops the work at its next check, or in
    /// the middle of libvips' computation, and throws ``DarkroomError/Kind/cancelled``.
    ///
    /// - Throws: ``DarkroomError`` saying what was wrong with the input or options.
    public func process(_ data: Data, options: ProcessingOptions) async throws(DarkroomError) -> ProcessedImage {
        do {
            return try await executor.runStoppable { killSwitch throws(DarkroomError) -> ProcessedImage in
                try Self.processBlocking(data, options: options, killSwitch: killSwitch)
            }
        } catch let error as DarkroomError {
            throw error
        } catch {
            throw Task.isCancelled ? .cancelled : DarkroomError(.processingFailed, "processing failed", underlying: "\(error)")
        }
    }

    /// What the image in `data` is: format, upright size, orientation,
    /// frames, the EXIF fields that matter (GPS only with `includeGPS`), its
    /// dominant colour, and BlurHash and ThumbHash placeholders, with what
    /// `asked` adds (imgproxy Pro's info options). The limits apply as for
    /// processing.
    ///
    /// - Throws: ``DarkroomError`` saying what was wrong with the input.
    public func info(of data: Data, limits: ImageLimits = ImageLimits(), includeGPS: Bool = false,
                     options asked: InfoOptions = InfoOptions(),
                     objectDetection: ObjectDetection = ObjectDetection()) async throws(DarkroomError) -> ImageInfo {
        do {
            return try await executor.runStoppable { killSwitch throws(DarkroomError) -> ImageInfo in
                var options = ProcessingOptions(limits: limits)
                options.objectDetection = objectDetection
                (options.videoSecond, options.videoKeyframes) = (asked.videoSecond, asked.videoKeyframes)
                // Under the same deadline as an image.
                let run = ProcessingRun(data: data, options: options, killSwitch: killSwitch)
                var info = try run.withDeadline { () throws(DarkroomError) in try run.inspect(includeGPS: includeGPS, asked: asked) }
                // Of the source's bytes, as sent (an SVG's, not its drawing's).
                info.size = asked.size ? data.count : nil
                (info.answersFormat, info.answersDimensions) = (asked.format, asked.dimensions)
                if !asked.hashsums.isEmpty {
                    info.hashsums = Dictionary(uniqueKeysWithValues: asked.hashsums.map { ($0.rawValue, Hashsum.hex(of: data, $0)) })
                }
                return info
            }
        } catch let error as DarkroomError {
            throw error
        } catch {
            throw Task.isCancelled ? .cancelled : DarkroomError(.processingFailed, "reading the image failed", underlying: "\(error)")
        }
    }

    /// Processes on the calling thread, which must be one that may block.
    package static func processBlocking(
        _ data: Data,
        options: ProcessingOptions,
        killSwitch: KillSwitch = KillSwitch()
    ) throws(DarkroomError) -> ProcessedImage {
        try ProcessingRun(data: data, options: options, killSwitch: killSwitch).run()
    }

    /// Processes on the calling thread with `killSwitch`, which the
    /// caller pulls to stop libvips in the middle. `trace` is the context
    /// the run's spans (decode, process, encode) go under.
    static func processBlocking(_ data: Data, options: ProcessingOptions, killSwitch: KillSwitch,
                                trace: InstrumentationContext?) throws(DarkroomError) -> ProcessedImage {
        var run = ProcessingRun(data: data, options: options, killSwitch: killSwitch)
        run.trace = trace
        return try run.run()
    }
}
