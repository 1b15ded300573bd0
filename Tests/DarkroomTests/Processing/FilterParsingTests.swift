import Darkroom
import Testing

@Suite struct FilterParsingTests {
    @Test(arguments: [
        ("sepia", ImageOperation.sepia(intensity: 0.8)), ("sepia:0.5", .sepia(intensity: 0.5)),
        ("grayscale", .grayscale), ("blur:2", .blur(sigma: 2)), ("sharpen", .sharpen(sigma: 1)),
        ("SEPIA:1", .sepia(intensity: 1)),
    ])
    func parses(text: String, operation: ImageOperation) throws {
        #expect(try ImageOperation(filter: text) == operation)
    }

    @Test(arguments: ["vintage", "blur", "blur:x", "sepia:1.5", "grayscale:2", "blur:nan", ""])
    func refuses(text: String) {
        #expect(throws: DarkroomError.self) { try ImageOperation(filter: text) }
    }

    @Test func identifiersAreStableAndDistinct() {
        let a = ProcessingOptions(operations: [.resize(Resize(width: 600, height: 600)), .sepia(intensity: 0.8)])
        #expect(a.identifier == "resize:fit:600:600:centre:0/sepia:0.8/rotate/source:q85")
        let b = ProcessingOptions(operations: [.sepia(intensity: 0.8), .resize(Resize(width: 600, height: 600))])
        #expect(a.identifier != b.identifier)
    }
}
