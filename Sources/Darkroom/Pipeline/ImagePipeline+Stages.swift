import Foundation
import Tracing

extension ImagePipeline {
    /// The process job: disk (processed key), then the shared cache, then
    /// the data job, then the filtration queue; stores the result in memory,
    /// on disk and in the shared cache.
    func process(_ request: ImageRequest, key: String, context: JobContext<ImageResponse>) async throws(DarkroomError) -> ImageResponse {
        try await Traces.span("darkroom.job") { span throws(DarkroomError) in
            // Attributes only for a span that records: no URL parsed on every miss when tracing is off.
            if span.isRecording { span.attributes["darkroom.source"] = request.source.url.map(Traces.redacted) ?? request.source.cacheKey }
            let response = try await processUntraced(request, key: key, context: context)
            if span.isRecording { span.attributes["darkroom.cache"] = response.cacheType?.rawValue ?? "none" }
            return response
        }
    }

    private func processUntraced(_ request: ImageRequest, key: String, context: JobContext<ImageResponse>) async throws(DarkroomError) -> ImageResponse {
        // One trip to the I/O threads for the result and, when it is not
        // there, what the source's download would read next.
        let found = request.bypassesCache ? DiskLookup() : await lookOnDisk(result: key, source: request.source)
        if !request.bypassesCache, let hit = await storedResult(key, onDisk: found.result) { return hit }
        if Task.isCancelled { throw .cancelled }
        // Admission is each waiter's: those that may be refused are, and
        // the work goes on if one that must be served is waiting for it.
        try context.admit(maxWaiting: configuration.maxWaitingProcessing, error: Self.overloaded)

        // The source's bytes are held until this job ends, so downloads
        // wait while too many bytes wait for a processing thread; a source
        // made in several versions at once counts once. A downloaded
        // source's were held for this run as its data job ended, and given
        // bytes are held now; the job's end releases them either way.
        // The data job's waiter takes this job's priority in the core as it joins.
        let source = try await sourceData(for: request.source, priority: request.priority, onEvent: { context.publish($0) },
                                          for: context.job, onDisk: found.source, bypassingCaches: request.bypassesCache)
        if case .data = request.source { sourceBytes.hold(request.source.cacheKey, bytes: source.data.count, for: context.job) }
        if Task.isCancelled { throw .cancelled }

        let started = ContinuousClock.now
        let options = request.options
        // The run's spans go under the job's, from the processing thread.
        let trace = Traces.current
        let waiting = startSpan("darkroom.queue.filtration", context: trace)
        defer { waiting.end() }
        // A turn for a processing slot, taken by this job's task and
        // following its priority: the run goes to the executor's thread
        // from here, and this task's cancellation reaches the run's kill
        // switch through the turn's context.
        // The run's slot passes on as the job ends, with its answer.
        let image = try await filtrationQueue.runBlockingInTurn(for: context.job, endsWithJob: true) { killSwitch throws(DarkroomError) in
            waiting.end()
            return try ImageProcessor.processBlocking(source.data, options: options, killSwitch: killSwitch, trace: trace)
        }
        metrics.stage("process", since: started)

        let response = {
            var response = ImageResponse(image: image, cacheType: nil, sourceETag: source.etag, sourceLastModified: source.lastModified, key: key)
            response.sourceCacheControl = source.cacheControl
            response.sourceExpires = source.expires
            response.sourceHeaders = source.responseHeaders
            return response
        }()
        Traces.span("darkroom.store.memory", under: trace) { memoryCache.store(response, for: key, cost: image.memoryCost) }
        writeDiskInBackground(response.diskEntry, key: key)
        if let sharedCache {
            diskWrites.start { await Traces.span("darkroom.store.shared") { _ in await sharedCache.store(response, for: key) } }
        }
        return response
    }

    /// What a miss needs from the disk, read in one trip: the result's entry
    /// and, only when that is missing, the source's (unless the recent
    /// sources in memory hold it) and its remembered failure (only where
    /// failures are kept on disk).
    struct DiskLookup: Sendable {
        var result: DiskCacheEntry?
        var source: SourceOnDisk?
    }

    /// A URL source's disk entries, as the data job would read them.
    struct SourceOnDisk: Sendable {
        /// nil when not read: the source was in memory then.
        var entry: DiskCacheEntry??
        var failure: DiskCacheEntry?
    }

    func lookOnDisk(result key: String, source: ImageSource) async -> DiskLookup {
        guard let diskCache else { return DiskLookup() }
        guard let url = source.url else {
            return (try? await io.run { DiskLookup(result: diskCache.entry(for: key)) }) ?? DiskLookup()
        }
        // A source kept in memory is not read; a failure another process
        // left on disk is read all the same, since it comes first.
        let sourceKey: String? = recentSources?.value(for: source.cacheKey) == nil ? source.cacheKey : nil
        let failureKey = failures.isEnabled && configuration.keepsFailuresOnDisk ? "failure:\(url.absoluteString)" : nil
        return (try? await io.run {
            if let result = diskCache.entry(for: key) { return DiskLookup(result: result) }
            return DiskLookup(source: SourceOnDisk(entry: sourceKey.map { diskCache.entry(for: $0) },
                                                   failure: failureKey.flatMap { diskCache.entry(for: $0) }))
        }) ?? DiskLookup()
    }

    /// The result from the disk cache (read already when `onDisk` is
    /// given), else from the shared cache (kept on disk and in memory for
    /// next time); nil when neither has it.
    func storedResult(_ key: String, onDisk: DiskCacheEntry?? = nil) async -> ImageResponse? {
        if let hit = await diskHit(key, read: onDisk) { return hit }
        if diskCache != nil { metrics.cache(.disk, hit: false) }
        guard let sharedCache, let hit = await sharedCache.image(for: key) else { return nil }
        memoryCache.store(hit, for: key, cost: hit.image.memoryCost)
        writeDiskInBackground(hit.diskEntry, key: key)
        return hit
    }

    static let overloaded = DarkroomError(.overloaded, "the server is busy: too much image work is waiting; try again shortly")

    /// The source's bytes: at once for in-memory sources; through the
    /// coalesced data job for URLs. `dependent`: the process job asking,
    /// whose priority the data job's waiter follows, and whose run holds
    /// the bytes in the window from their arrival until the job ends.
    func sourceData(
        for source: ImageSource,
        priority: WorkPriority,
        onEvent: (@Sendable (PipelineEvent) -> Void)?,
        for dependent: UInt64? = nil,
        onDisk: SourceOnDisk? = nil,
        bypassingCaches: Bool = false
    ) async throws(DarkroomError) -> SourceData {
        switch source {
        case .data(let data, _):
            let format: ImageFormat
            switch ImageFormat.sniff(data) {
            case .image(let sniffed): format = sniffed
            case .empty: throw DarkroomError(.emptyInput, "the data given is empty (0 bytes)")
            case .notAnImage(let what): throw DarkroomError(.notAnImage, "the data given is not an image: it looks like \(what)")
            }
            let source = SourceData(data: data, format: format)
            onEvent?(.original(source))
            return source
        case .url(let url), .urlWithHeaders(let url, _):
            let id = makeWaiterID()
            let key = source.cacheKey
            let jobs = dataJobs
            let headers: [PassedHeader] = if case .urlWithHeaders(_, let headers) = source { headers } else { [] }
            let jobKey = Self.jobKey(key, bypassingCaches: bypassingCaches)
            let metrics = self.metrics
            return try await jobs.value(jobKey, waiter: id, priority: priority, for: dependent, onEvent: onEvent,
                                        joined: { coalesced in if coalesced { metrics.coalesced(stage: .download) } }) { context throws(DarkroomError) in
                try await self.fetch(url, key: key, passedHeaders: headers, onDisk: onDisk, bypassingCaches: bypassingCaches, context: context)
            }
        }
    }

    /// A job's key: work that bypasses the caches (a download, a run) is
    /// shared only with work that bypasses them too.
    static func jobKey(_ key: String, bypassingCaches: Bool) -> String {
        bypassingCaches ? bypassPrefix + key : key
    }

    /// The data job: a recent failure fails at once; a fresh disk copy is
    /// used as it is; a stale one is revalidated; otherwise the source is
    /// downloaded on the download queue and stored. `onDisk`: the disk's
    /// entries, when the process job has read them already.
    func fetch(_ url: URL, key: String, passedHeaders: [PassedHeader] = [], onDisk: SourceOnDisk? = nil, bypassingCaches: Bool = false,
               context: JobContext<SourceData>) async throws(DarkroomError) -> SourceData {
        try await Traces.span("darkroom.fetch") { span throws(DarkroomError) in
            if span.isRecording { span.attributes["url.full"] = Traces.redacted(url) }
            return try await fetchUntraced(url, key: key, passedHeaders: passedHeaders, onDisk: onDisk, bypassingCaches: bypassingCaches,
                                           context: context)
        }
    }

    private func fetchUntraced(_ url: URL, key: String, passedHeaders: [PassedHeader], onDisk: SourceOnDisk?, bypassingCaches: Bool,
                               context: JobContext<SourceData>) async throws(DarkroomError) -> SourceData {
        // A failure remembered for the URL is another client's: one that
        // sends its own headers is asked for itself, and not remembered.
        // Bypassing the caches asks the origin whatever was remembered.
        let shared = passedHeaders.isEmpty
        if shared, !bypassingCaches, let failure = failures.recentFailure(for: url) {
            throw failure
        }
        if shared, !bypassingCaches, let failure = await rememberedFailure(for: url, read: onDisk.map(\.failure)) {
            throw failure
        }
        if !bypassingCaches, let recent = recentSources?.value(for: key) {
            // Used again: with sourceMinUses 2, now it is worth the disk.
            if configuration.sourceMinUses > 1, sourceUses.use(key) == configuration.sourceMinUses {
                writeDiskInBackground(recent.diskEntry, key: key)
            }
            context.publish(.original(recent))
            return recent
        }
        let cached = bypassingCaches ? nil : await readDisk(key, alreadyRead: onDisk.flatMap(\.entry))
        if let cached, let source = SourceData(diskEntry: cached),
           Date().timeIntervalSince(cached.storedAt) < configuration.sourceFreshness.seconds {
            metrics.cache(.sourceDisk, hit: true)
            context.publish(.original(source))
            return source
        }
        metrics.cache(.sourceDisk, hit: false)
        // Another replica's download, when sources are shared: its copy is
        // used as it is (the store's lifecycle rules expire it).
        if cached == nil, !bypassingCaches, let sharedCache, let shared = await sharedCache.source(for: key) {
            writeDiskInBackground(shared.diskEntry, key: key)
            context.publish(.original(shared))
            return shared
        }

        let request = DataRequest(url: url, etag: cached?.etag, lastModified: cached?.lastModified, passedHeaders: passedHeaders)
        let loader = self.loader
        let metrics = self.metrics
        let started = ContinuousClock.now
        let trace = Traces.current
        let waiting = startSpan("darkroom.queue.download", context: trace)
        defer { waiting.end() }
        // Room in the source bytes window first, holding no download slot
        // while it waits; the room ends with this job, as its bytes are
        // held for the runs waiting on it.
        await sourceBytes.waitForRoom(for: context.job)
        if Task.isCancelled { throw .cancelled }
        let response: DataResponse
        do {
            // A turn for a download slot, taken by this job's task and
            // following its priority: the download runs here, so its span
            // (and the traceparent the origin is sent) belong to this request.
            // The slot passes on as the data job ends.
            response = try await downloadQueue.runInTurn(for: context.job, endsWithJob: true) { () throws(DarkroomError) in
                if Task.isCancelled { throw .cancelled }
                waiting.end()
                return try await Traces.span("darkroom.download", under: trace) { span throws(DarkroomError) in
                    if span.isRecording { span.attributes["url.full"] = Traces.redacted(request.url) }
                    let response = try await loader.load(request) { received, expected in
                        context.publish(.progress(received: received, expected: expected))
                    }
                    if case .fetched(let fetched) = response { span.attributes["darkroom.bytes"] = fetched.data.count }
                    return response
                }
            }
        } catch {
            if error.kind == .cancelled { throw error }
            // Stale but sound beats nothing when the origin cannot answer.
            if let cached, let source = SourceData(diskEntry: cached), [.networkFailure, .timedOut].contains(error.kind) {
                context.publish(.original(source))
                return source
            }
            if shared {
                failures.remember(error, for: url)
                await rememberOnDisk(error, for: url)
            }
            logger.info("download failed; remembered for a while", metadata: ["url": "\(url.absoluteString)", "reason": "\(error.reason)"])
            throw error
        }
        metrics.stage("download", since: started)
        logger.trace("downloaded", metadata: ["url": "\(url.absoluteString)"])

        let source: SourceData
        switch response {
        case .notModified:
            guard let cached, let stillGood = SourceData(diskEntry: cached) else {
                throw DarkroomError(.httpStatus, "\(url.absoluteString) answered 304 to a request with no cached copy", statusCode: 304)
            }
            source = stillGood
        case .fetched(let fetched):
            metrics.downloaded(bytes: fetched.data.count)
            source = fetched
            if let sharedCache, sharedCache.configuration.storesSources {
                diskWrites.start { await Traces.span("darkroom.store.shared") { _ in await sharedCache.store(fetched, for: key) } }
            }
        }
        recentSources?.store(source, for: key, cost: source.data.count)
        if configuration.sourceMinUses <= 1 || cached != nil || sourceUses.use(key) >= configuration.sourceMinUses {
            writeDiskInBackground(source.diskEntry, key: key)
        }
        context.publish(.original(source))
        return source
    }

    /// Failures are kept on disk too, so another process (the next run of
    /// a command) does not ask the origin again before they expire.
    func rememberOnDisk(_ error: DarkroomError, for url: URL) async {
        guard failures.isEnabled, configuration.keepsFailuresOnDisk else { return }
        let until = failures.now().addingTimeInterval(failures.span.seconds)
        var metadata = ["kind": error.kind.description, "reason": error.reason, "until": "\(until.timeIntervalSince1970)",
                        "span": "\(failures.span.seconds)"]
        metadata["status"] = error.statusCode.map(String.init)
        await writeDisk(DiskCacheEntry(data: Data(), metadata: metadata), key: "failure:\(url.absoluteString)")
    }

    /// The failure kept on disk for `url`, read now or, given `read`,
    /// already.
    func rememberedFailure(for url: URL, read: DiskCacheEntry?? = nil) async -> DarkroomError? {
        guard failures.isEnabled, configuration.keepsFailuresOnDisk else { return nil }
        guard let entry = await readDisk("failure:\(url.absoluteString)", alreadyRead: read),
              let until = entry.metadata["until"].flatMap(Double.init).map(Date.init(timeIntervalSince1970:)),
              let kind = entry.metadata["kind"].flatMap(DarkroomError.Kind.init(named:)), let reason = entry.metadata["reason"]
        else { return nil }
        guard failures.holds(until: until, span: entry.metadata["span"].flatMap(Double.init)) else { return nil }
        let error = DarkroomError(kind, reason, statusCode: entry.metadata["status"].flatMap(Int.init))
        failures.remember(error, for: url, until: until)
        return failures.recentFailure(for: url)
    }

    /// `key`'s disk entry: `alreadyRead` where it was read already (in
    /// ``lookOnDisk(result:source:)``'s one trip), else read now.
    func readDisk(_ key: String, alreadyRead: DiskCacheEntry?? = nil) async -> DiskCacheEntry? {
        if let alreadyRead { return alreadyRead }
        guard let diskCache else { return nil }
        return try? await io.run { diskCache.entry(for: key) }
    }

    /// Writes after the answer: the entry is on disk once
    /// ``waitForDiskWrites()`` returns, and at the latest at shutdown.
    func writeDiskInBackground(_ entry: DiskCacheEntry, key: String) {
        guard diskCache != nil else { return }
        diskWrites.start { [self] in await writeDisk(entry, key: key) }
    }

    func writeDisk(_ entry: DiskCacheEntry, key: String) async {
        guard let diskCache else { return }
        await Traces.span("darkroom.store.disk") { _ in
            _ = try? await io.run { try diskCache.store(entry, for: key) }
        }
    }
}
