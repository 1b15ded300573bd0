#include "darkroom_faces.h"

#include <dlib/image_processing/frontal_face_detector.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

namespace {

// Deserialising the built-in model takes about half a second: once per
// process. A detector is not safe to share between threads, so each
// thread keeps its own copy of this one.
const dlib::frontal_face_detector &prototype() {
    static std::once_flag once;
    static std::unique_ptr<dlib::frontal_face_detector> detector;
    std::call_once(once, [] { detector = std::make_unique<dlib::frontal_face_detector>(dlib::get_frontal_face_detector()); });
    return *detector;
}

dlib::frontal_face_detector &thread_detector() {
    thread_local std::unique_ptr<dlib::frontal_face_detector> detector;
    if (!detector) detector = std::make_unique<dlib::frontal_face_detector>(prototype());
    return *detector;
}

void copy_message(const char *message, char *error, int error_size) {
    if (error == nullptr || error_size <= 0) return;
    std::strncpy(error, message, static_cast<size_t>(error_size) - 1);
    error[error_size - 1] = '\0';
}

} // namespace

extern "C" int darkroom_detect_faces(const unsigned char *grey, int width, int height, double threshold,
                                     darkroom_face *faces, int capacity, char *error, int error_size) {
    if (grey == nullptr || width <= 0 || height <= 0 || capacity < 0) {
        copy_message("no pixels", error, error_size);
        return -1;
    }
    try {
        dlib::array2d<unsigned char> image(height, width);
        for (int y = 0; y < height; y++) {
            std::memcpy(&image[y][0], grey + static_cast<size_t>(y) * static_cast<size_t>(width), static_cast<size_t>(width));
        }
        std::vector<dlib::rect_detection> found;
        thread_detector()(image, found, threshold);
        std::sort(found.begin(), found.end(), [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
            return a.detection_confidence > b.detection_confidence;
        });
        int count = 0;
        for (const auto &detection : found) {
            if (count == capacity) break;
            // The box may reach past the edges: kept inside.
            const dlib::rectangle box = detection.rect.intersect(dlib::rectangle(0, 0, width - 1, height - 1));
            if (box.is_empty()) continue;
            faces[count].left = static_cast<int>(box.left());
            faces[count].top = static_cast<int>(box.top());
            faces[count].width = static_cast<int>(box.width());
            faces[count].height = static_cast<int>(box.height());
            faces[count].score = detection.detection_confidence;
            count++;
        }
        return count;
    } catch (const std::exception &exception) {
        copy_message(exception.what(), error, error_size);
        return -1;
    } catch (...) {
        copy_message("unknown failure", error, error_size);
        return -1;
    }
}
