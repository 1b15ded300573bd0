// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Darkroom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Darkroom", targets: ["Darkroom"]),
        .executable(name: "darkroom", targets: ["darkroom"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
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
        // The only module that imports the C modules. Its API is `package`.
        .target(
            name: "DarkroomImaging",
            dependencies: ["CVips", "CCairo"]
        ),
        // The public library.
        .target(
            name: "Darkroom",
            dependencies: [
                "DarkroomImaging",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The commands, as a library so tests can parse and run them in-process.
        .target(
            name: "DarkroomCLI",
            dependencies: [
                "Darkroom",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "darkroom",
            dependencies: ["DarkroomCLI"]
        ),
        .target(
            name: "TestSupport",
            dependencies: ["Darkroom"],
            path: "Tests/TestSupport"
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
            name: "DarkroomCLITests",
            dependencies: ["DarkroomCLI", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
