package import DarkroomImaging

extension VImage {
    /// The image written with `encoder`, its pixels computed under a kill
    /// switch nobody pulls: how a test makes a fixture, as the product's
    /// own calls all go through a switch (``PixelPass``).
    package func encodedInTest(_ encoder: Encoder, strip: Bool = true) throws(VipsError) -> [UInt8] {
        try VipsKillSwitch().armed(self) { pass throws(VipsError) in try encoded(encoder, strip: strip, through: pass) { [UInt8]($0) } }
    }
}
