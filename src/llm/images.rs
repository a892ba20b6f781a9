//! Which of a history's images a request carries: the newest `image::MAX_IMAGES_PER_REQUEST`,
//! and when more than `MANY_IMAGES` go, none wider or taller than `MANY_IMAGES_MAX_SIDE_PX`
//! (Anthropic's rule: "If you submit more than 20 images in one API request, this limit is
//! reduced to 2000x2000 px", platform.claude.com/docs/en/build-with-claude/vision). An image
//! left out goes as its placeholder text, so the model knows it was there.
//!
//! Invariant: pure; the images are numbered in history order, each message's own images before
//! its results' (`Message::all_images`), the order both encoders walk them in. The same rules
//! apply to both protocols: a conversation may change provider with `/model`.

use crate::image::MAX_IMAGES_PER_REQUEST;
use crate::msg::Message;

/// More images than this in one request lower the size limit...
const MANY_IMAGES: usize = 20;
/// ...to this many pixels on a side.
const MANY_IMAGES_MAX_SIDE_PX: u32 = 2000;

/// Whether each image of `messages`, numbered in history order, is sent (false: its
/// placeholder goes instead). All true in the common case of a few images.
pub(crate) fn plan_images(messages: &[Message]) -> Vec<bool> {
    let sizes: Vec<Option<(u32, u32)>> =
        messages.iter().flat_map(Message::all_images).map(|image| image.size_px).collect();
    let mut sent = vec![true; sizes.len()];
    let dropped = sizes.len().saturating_sub(MAX_IMAGES_PER_REQUEST);
    sent[..dropped].fill(false);
    if sizes.len() - dropped > MANY_IMAGES {
        for (index, size) in sizes.iter().enumerate() {
            if let Some((width, height)) = size
                && (*width > MANY_IMAGES_MAX_SIDE_PX || *height > MANY_IMAGES_MAX_SIDE_PX)
            {
                sent[index] = false;
            }
        }
    }
    sent
}

/// The number of images before each message (the index of its first image in `plan_images`).
pub(crate) fn first_image_of(messages: &[Message]) -> Vec<usize> {
    let mut before = 0;
    messages
        .iter()
        .map(|message| {
            let first = before;
            before += message.all_images().count();
            first
        })
        .collect()
}

#[cfg(test)]
#[path = "images_tests.rs"]
mod tests;
