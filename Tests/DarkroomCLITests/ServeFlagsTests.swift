@testable import DarkroomCLI
import Darkroom
import DarkroomServer
import Testing

@Suite struct ServeFlagsTests {
    func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> ServerConfiguration {
        try ServeCommand.parse(arguments).serverConfiguration(environment: environment)
    }

    @Test func memoryCacheWorkersAndAccessLog() throws {
        let c = try configuration(["--memory-cache-mb", "64", "--workers", "3", "--access-log"])
        #expect(c.memoryCacheBytes == 64 << 20)
        #expect(c.filtrationConcurrency == 3)
        #expect(c.accessLog)

        let fromEnvironment = try configuration([], environment: ["DARKROOM_MEMORY_CACHE_MB": "8", "DARKROOM_WORKERS": "1", "DARKROOM_ACCESS_LOG": "true"])
        #expect(fromEnvironment.memoryCacheBytes == 8 << 20)
        #expect(fromEnvironment.filtrationConcurrency == 1)
        #expect(fromEnvironment.accessLog)

        let defaults = try configuration([])
        #expect(defaults.memoryCacheBytes == nil)
        #expect(!defaults.accessLog)
        // A flag wins over the variable.
        #expect(try configuration(["--workers", "2"], environment: ["DARKROOM_WORKERS": "5"]).filtrationConcurrency == 2)
    }

    @Test func outOfRangeNumbersAreRefusedByName() throws {
        for (arguments, environment, word) in [
            (["--memory-cache-mb", "-1"], [:], "memory-cache-mb"),
            (["--memory-cache-mb", "99999999999"], [:], "memory-cache-mb"),
            (["--workers", "0"], [:], "workers"),
            (["--workers", "100000"], [:], "workers"),
            ([], ["DARKROOM_WORKERS": "NaN"], "DARKROOM_WORKERS"),
            ([], ["DARKROOM_MEMORY_CACHE_MB": "1e300"], "DARKROOM_MEMORY_CACHE_MB"),
            (["--max-result-dimension", "0"], [:], "max-result-dimension"),
            (["--max-result-dimension", "1000000"], [:], "max-result-dimension"),
            (["--max-processing-seconds", "0"], [:], "max-processing-seconds"),
            ([], ["DARKROOM_MAX_PROCESSING_SECONDS": "NaN"], "DARKROOM_MAX_PROCESSING_SECONDS"),
        ] as [([String], [String: String], String)] {
            do {
                _ = try configuration(arguments, environment: environment)
                Issue.record("\(arguments) \(environment) was accepted")
            } catch {
                #expect("\(error)".contains(word), "\(error)")
            }
        }
    }

    @Test func resultSizeAndProcessingTimeLimits() throws {
        let defaults = try configuration([])
        #expect(defaults.limits.maxResultDimension == 8192)
        #expect(defaults.limits.maxProcessingTime == .seconds(20))
        let c = try configuration(["--max-result-dimension", "4000", "--max-processing-seconds", "5"])
        #expect(c.limits.maxResultDimension == 4000)
        #expect(c.limits.maxProcessingTime == .seconds(5))
        let e = try configuration([], environment: ["DARKROOM_MAX_RESULT_DIMENSION": "2000", "DARKROOM_MAX_PROCESSING_SECONDS": "9"])
        #expect(e.limits.maxResultDimension == 2000 && e.limits.maxProcessingTime == .seconds(9))
    }

    @Test func theDefaultMemoryCacheFitsTheMachine() {
        let bytes = ImagePipeline.Configuration.defaultMemoryCacheBytes
        #expect(bytes >= 16 << 20 && bytes <= 256 << 20)
        #expect(ImagePipeline.Configuration().memoryCache.costLimit == bytes)
    }
}
