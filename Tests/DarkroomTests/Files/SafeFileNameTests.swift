import Darkroom
import Testing

@Suite struct SafeFileNameTests {
    @Test(arguments: [
        ("Lady Bird", "Lady Bird"), ("../../etc/passwd", "_.._etc_passwd"), ("a/b\\c:d", "a_b_c_d"),
        ("...", "image"), ("", "image"), ("CON", "CON_"), ("line\nbreak", "line_break"),
    ])
    func makesSafeNames(text: String, expected: String) {
        #expect(SafeFileName.make(text) == expected)
    }

    @Test func keepsNamesUniqueWithoutCase() {
        var used = Set<String>()
        #expect(SafeFileName.unique("Photo", in: &used) == "Photo")
        #expect(SafeFileName.unique("photo", in: &used) == "photo-2")
        #expect(SafeFileName.unique("Photo", in: &used) == "Photo-3")
    }

    @Test func longNamesAreCut() {
        #expect(SafeFileName.make(String(repeating: "é", count: 300)).utf8.count <= 120)
    }
}
