@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// imgproxy's own size tables (its processing tests, on its 200 x 100
/// `test2.jpg`), through Darkroom: the same asked size, mode, enlarge,
/// extend, padding, rotation and result limit give the same result size.
/// A 200 x 100 image of one colour stands in for its fixture: only the
/// sizes are compared.
@Suite(.offCooperativePool) struct ImgproxyGeometryTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var mode: Resize.Mode
        var width: Int
        var height: Int
        var enlarge = false
        var extend = false
        var extendAspectRatio = false
        var padding: Frame.Padding?
        var rotate = 0
        var limit = 8192
        var dpr: Double?
        var out: (Int, Int)

        var testDescription: String {
            "\(mode.rawValue) \(width)x\(height)\(enlarge ? " el" : "")\(extend ? " ex" : "")\(extendAspectRatio ? " exar" : "")"
                + "\(padding.map { " pd:\($0.identifier)" } ?? "")\(rotate != 0 ? " rot:\(rotate)" : "")\(limit != 8192 ? " mrd:\(limit)" : "")"
                + "\(dpr.map { " dpr:\($0)" } ?? "") → \(out.0)x\(out.1)"
        }
    }

    static let source: Data = {
        // swiftlint:disable:next force_try
        try! solidPNG([90, 140, 200], width: 200, height: 100)
    }()

    static func table(_ mode: Resize.Mode, enlarge: Bool = false, extend: Bool = false, extendAspectRatio: Bool = false,
                      _ rows: [(Int, Int, Int, Int)]) -> [Case] {
        rows.map { Case(mode: mode, width: $0.0, height: $0.1, enlarge: enlarge, extend: extend, extendAspectRatio: extendAspectRatio,
                        out: ($0.2, $0.3)) }
    }

    static let fit = table(.fit, [
        (50, 50, 50, 25), (50, 20, 40, 20), (20, 50, 20, 10), (300, 300, 200, 100), (300, 50, 100, 50),
        (100, 300, 100, 50), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ]) + table(.fit, enlarge: true, [
        (50, 50, 50, 25), (50, 20, 40, 20), (20, 50, 20, 10), (300, 300, 300, 150), (300, 125, 250, 125),
        (250, 300, 250, 125), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 400, 200), (300, 0, 300, 150),
    ]) + table(.fit, extend: true, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 200), (300, 0, 300, 100),
    ]) + table(.fit, extendAspectRatio: true, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 200, 200), (300, 125, 240, 100),
        (250, 500, 200, 400), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ])

    static let fill = table(.fill, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 200, 100), (300, 50, 200, 50),
        (100, 300, 100, 100), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ]) + table(.fill, enlarge: true, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 400, 200), (300, 0, 300, 150),
    ]) + table(.fill, extend: true, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (300, 50, 300, 50), (100, 300, 100, 300), (0, 50, 100, 50), (50, 0, 50, 25),
        (0, 200, 200, 200), (300, 0, 300, 100),
    ]) + table(.fill, extendAspectRatio: true, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 200, 200), (300, 125, 240, 100),
        (250, 500, 200, 400), (300, 50, 300, 50), (100, 300, 100, 300), (0, 50, 100, 50), (50, 0, 50, 25),
        (0, 200, 200, 100), (300, 0, 200, 100),
    ])

    static let fillDown = table(.fillDown, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 100, 100), (300, 125, 200, 83),
        (250, 300, 83, 100), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ]) + table(.fillDown, enlarge: true, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 400, 200), (300, 0, 300, 150),
    ]) + table(.fillDown, extend: true, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (300, 50, 300, 50), (100, 300, 100, 300), (0, 50, 100, 50), (50, 0, 50, 25),
        (0, 200, 200, 200), (300, 0, 300, 100),
    ]) + table(.fillDown, extendAspectRatio: true, [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 100, 100), (300, 125, 200, 83),
        (250, 300, 83, 100), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ])

    /// imgproxy's `TestResultSizeLimit`: the result limit scales the
    /// result (extend, padding and all) down to fit.
    static let resultLimit: [Case] = {
        let pad = Frame.Padding(top: 100, right: 200, bottom: 300, left: 400)
        var cases: [Case] = []
        for (mode, rows) in [
            (Resize.Mode.fit, [(1000, 100, 100, false, false, false, nil, 0, 100, 50), (50, 100, 100, false, false, false, nil, 0, 50, 25),
                               (50, 0, 0, false, false, false, nil, 0, 50, 25), (100, 0, 100, false, false, false, nil, 0, 100, 50),
                               (50, 150, 0, false, false, false, nil, 0, 50, 25), (100, 1000, 1000, false, false, false, nil, 0, 100, 50),
                               (100, 1000, 1000, true, false, false, nil, 0, 100, 50), (100, 1000, 2000, false, true, false, nil, 0, 50, 100),
                               (100, 1000, 2000, false, false, true, nil, 0, 50, 100), (100, 100, 150, false, false, false, nil, 90, 50, 100),
                               (100, 0, 0, false, false, false, nil, 90, 50, 100), (200, 100, 100, false, false, false, pad, 0, 200, 129)]),
            (.fill, [(1000, 100, 100, false, false, false, nil, 0, 100, 100), (50, 100, 100, false, false, false, nil, 0, 50, 50),
                     (50, 1000, 50, false, false, false, nil, 0, 50, 13), (50, 100, 1000, false, false, false, nil, 0, 50, 50),
                     (50, 0, 0, false, false, false, nil, 0, 50, 25), (100, 0, 100, false, false, false, nil, 0, 100, 50),
                     (50, 150, 0, false, false, false, nil, 0, 50, 25), (100, 1000, 1000, false, false, false, nil, 0, 100, 50),
                     (100, 1000, 1000, true, false, false, nil, 0, 100, 100), (100, 1000, 2000, false, true, false, nil, 0, 50, 100),
                     (100, 1000, 2000, false, false, true, nil, 0, 50, 100), (100, 100, 150, false, false, false, nil, 90, 67, 100),
                     (100, 0, 0, false, false, false, nil, 90, 50, 100), (200, 100, 100, false, false, false, pad, 0, 200, 144)]),
            (.fillDown, [(1000, 100, 100, false, false, false, nil, 0, 100, 100), (50, 100, 100, false, false, false, nil, 0, 50, 50),
                         (50, 1000, 50, false, false, false, nil, 0, 50, 3), (50, 100, 1000, false, false, false, nil, 0, 5, 50),
                         (50, 0, 0, false, false, false, nil, 0, 50, 25), (100, 0, 100, false, false, false, nil, 0, 100, 50),
                         (50, 150, 0, false, false, false, nil, 0, 50, 25), (100, 1000, 1000, false, false, false, nil, 0, 100, 100),
                         (100, 1000, 1000, true, false, false, nil, 0, 100, 100), (100, 1000, 2000, false, true, false, nil, 0, 50, 100),
                         (100, 1000, 2000, false, false, true, nil, 0, 50, 100), (100, 1000, 1500, false, false, false, nil, 90, 67, 100),
                         (100, 0, 0, false, false, false, nil, 90, 50, 100), (200, 100, 100, false, false, false, pad, 0, 200, 144),
                         (200, 1000, 1000, false, false, false, pad, 0, 200, 144)]),
        ] as [(Resize.Mode, [(Int, Int, Int, Bool, Bool, Bool, Frame.Padding?, Int, Int, Int)])] {
            for row in rows {
                cases.append(Case(mode: mode, width: row.1, height: row.2, enlarge: row.3, extend: row.4, extendAspectRatio: row.5,
                                  padding: row.6, rotate: row.7, limit: row.0, out: (row.8, row.9)))
            }
        }
        return cases
    }()

    static func run(_ c: Case) throws -> ProcessedImage {
        var operations: [ImageOperation] = []
        if c.rotate != 0 { operations.append(.rotate(degrees: c.rotate)) }
        operations.append(.resize(Resize(width: c.width > 0 ? c.width : nil, height: c.height > 0 ? c.height : nil,
                                         mode: c.mode, enlarge: c.enlarge, dpr: c.dpr)))
        if c.extend || c.extendAspectRatio || c.padding != nil {
            operations.append(.frame(Frame(extend: c.extend ? .centre : nil, extendAspectRatio: c.extendAspectRatio ? .centre : nil,
                                           padding: c.padding)))
        }
        return try process(source, ProcessingOptions(operations: operations, output: OutputOptions(format: .png),
                                                     limits: ImageLimits(maxResultDimension: c.limit)))
    }

    /// The device pixel ratio multiplies the asked size, lowered where the
    /// source cannot reach it without enlarging: a fill then keeps the
    /// asked shape, as imgproxy's.
    static let dpr: [Case] = [
        Case(mode: .fit, width: 50, height: 50, dpr: 2, out: (100, 50)),
        Case(mode: .fill, width: 13, height: 50, dpr: 2, out: (26, 100)),
        Case(mode: .fill, width: 13, height: 50, dpr: 4, out: (26, 100)),
        Case(mode: .fill, width: 100, height: 100, dpr: 3, out: (100, 100)),
        Case(mode: .fit, width: 300, height: 300, dpr: 2, out: (200, 100)),
        Case(mode: .fit, width: 300, height: 300, enlarge: true, dpr: 2, out: (600, 300)),
    ]

    @Test(arguments: fit + fill + fillDown + resultLimit + dpr)
    func sameSizeAsImgproxy(_ c: Case) throws {
        let result = try Self.run(c)
        #expect((result.width, result.height) == c.out)
        let decoded = try pixels(of: result)
        #expect((decoded.width, decoded.height) == c.out, "the bytes are the size the result says")
    }
}
