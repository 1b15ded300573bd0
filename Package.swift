// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Darkroom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Darkroom", targets: ["Darkroom"]),
        .executable(name: "darkroom", targets: ["darkroom"]),
    ],
    // The heavy native parts, off unless asked: a library user needs
    // libvips and the fast path's codecs alone. The server's own build
    // (the Makefile, the image) turns both on (`--traits Faces,Video`).
    traits: [
        .trait(name: "Faces", description: "Face detection (object gravity, blurring and drawing detections) by dlib, with LAPACK and BLAS."),
        .trait(name: "Video", description: "Video sources answered by a frame, through FFmpeg's libraries, in a drawing child."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.24.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
        // Traces: the API in the library, the OTLP exporter in `serve` only
        // (over HTTP: the gRPC exporter's packages stay out of the build).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // `swift package generate-documentation` (make docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        // Tests only: reading the Kubernetes manifests.
        .package(url: "https://github.com/jpsim/Yams.git", from: "5.0.1"),
    ],
    targets: [
        // System libraries: a module map and a header, nothing else.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]
        ),
        // Darkroom's own steps over libvips (colour policy, watermarks,
        // metadata, frames, text checks...), declared in CVips' headers,
        // whose wrappers stay fixed-arity calls and nothing more.
        .target(
            name: "CVipsOperations",
            dependencies: ["CVips"]
        ),
        // What both pixel engines read of a source the same way: JPEG
        // markers, EXIF, whether an ICC profile is sRGB's, and the
        // fixed-point colour recombination (sepia). Plain C, no library.
        .target(
            name: "CImageFacts"
        ),
        // The drawing children's seccomp filter: no socket, for good.
        .target(
            name: "CSandbox"
        ),
        // Small images from big ones without libvips: JPEG on libjpeg-turbo
        // (scaled decode, one encode), PNG on libdeflate, WebP on libwebp,
        // AVIF on libavif, and Lanczos-3 in fixed point with SIMD between. C: libjpeg
        // reports errors by longjmp.
        .target(
            name: "CThumbnail",
            dependencies: ["CImageFacts"],
            // No unsafe flags here: SwiftPM refuses them in a versioned
            // dependency. The Makefile's debug builds pass -O2 to C code
            // instead (the suite runs thousands of images through it).
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("deflate"), .linkedLibrary("webp"), .linkedLibrary("avif"), .linkedLibrary("m")]
        ),
        // Faces, by dlib's frontal face detector (its model is built into
        // libdlib). C++ behind a C header; dlib's headers call LAPACK and BLAS.
        .target(
            name: "CFaces",
            linkerSettings: [.linkedLibrary("dlib"), .linkedLibrary("lapack"), .linkedLibrary("blas")]
        ),
        // A video's frame, through FFmpeg's libraries: only the child
        // process that draws video frames runs it.
        .target(
            name: "CVideo",
            linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"), .linkedLibrary("avutil")]
        ),
        // The only module that imports the C modules. Its API is `package`.
        .target(
            name: "DarkroomImaging",
            dependencies: [
                "CVips", "CVipsOperations", "CCairo", "CImageFacts", "CThumbnail",
                .target(name: "CFaces", condition: .when(traits: ["Faces"])),
                .target(name: "CVideo", condition: .when(traits: ["Video"])),
            ]
        ),
        // The public library.
        .target(
            name: "Darkroom",
            dependencies: [
                "DarkroomImaging",
                "CSandbox",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // What the drawing children run on a stranger's bytes (a PDF page,
        // an SVG, a video frame), in a process of their own: linked by
        // the executable, never by the library.
        .target(
            name: "DarkroomChildren",
            dependencies: ["Darkroom", "DarkroomImaging"]
        ),
        // The web server: image URLs, the gallery, metrics. `darkroom serve`
        // runs the application that buildApplication(_:) makes, as the tests do.
        .target(
            name: "DarkroomServer",
            dependencies: [
                "Darkroom",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                // AES-CBC, for imgproxy's encrypted source URLs.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.copy("Resources/gallery"), .copy("Resources/samples")]
        ),
        // The commands, as a library so tests can parse and run them in-process.
        .target(
            name: "DarkroomCLI",
            dependencies: [
                "Darkroom",
                "DarkroomServer",
                "DarkroomChildren",
                "CSandbox",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OTel", package: "swift-otel"),
            ]
        ),
        .executableTarget(
            name: "darkroom",
            dependencies: ["DarkroomCLI"]
        ),
        // libFuzzer harnesses (make fuzz); an ordinary build replays files.
        .executableTarget(
            name: "darkroom-fuzz",
            dependencies: ["Darkroom", "DarkroomServer", "DarkroomImaging"]
        ),
        // Library-level benchmarks (make bench).
        .executableTarget(
            name: "darkroom-bench",
            dependencies: ["Darkroom"]
        ),
        // Writes disk-cache entries until killed, for the crash-safety test.
        .executableTarget(
            name: "darkroom-cache-writer",
            dependencies: ["Darkroom", "TestSupport"],
            path: "Tests/CacheWriter"
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "Darkroom", "DarkroomImaging",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/TestSupport"
        ),
        // A real server on a loopback port, for the server's tests and the live ones.
        .target(
            name: "ServerTestSupport",
            dependencies: [
                "DarkroomServer", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Tests/ServerTestSupport"
        ),
        .testTarget(
            name: "DarkroomImagingTests",
            dependencies: ["DarkroomImaging", "TestSupport"]
        ),
        .testTarget(
            name: "DarkroomTests",
            dependencies: ["Darkroom", "TestSupport"]
        ),
        .testTarget(
            name: "DarkroomServerTests",
            dependencies: [
                "DarkroomServer", "TestSupport", "ServerTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DarkroomCLITests",
            dependencies: ["DarkroomCLI", "TestSupport", .product(name: "Yams", package: "Yams")]
        ),
        // Tests that run other programs beside Darkroom, or kill it: the
        // gallery in Chromium, nginx in front, replicas on SeaweedFS, SIGKILL.
        .testTarget(
            name: "DarkroomLiveTests",
            dependencies: [
                "DarkroomCLI", "DarkroomServer", "TestSupport", "ServerTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Existentials spelled `any`, and imports internal unless a module's public
// API shows the imported types (`public import`), in every Swift target.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
