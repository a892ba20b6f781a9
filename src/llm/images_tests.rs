//! Unit tests of `images.rs`: the newest hundred go, big ones stay out of a crowded request.

use super::*;
use crate::msg::Image;

fn image(side: u32) -> Image {
    Image { media_type: "image/png".into(), data: "AAAA".into(), size_px: Some((side, side)), source: "a.png".into() }
}

#[test]
fn a_few_images_all_go() {
    let messages = vec![Message::user_with_images("a", vec![image(3000), image(10)])];
    assert_eq!(plan_images(&messages), [true, true]);
    assert_eq!(first_image_of(&messages), [0]);
}

#[test]
fn over_a_hundred_the_oldest_stay_out_and_over_twenty_the_big_ones() {
    let mut messages: Vec<Message> = (0..101).map(|_| Message::user_with_images("x", vec![image(10)])).collect();
    messages[50].images[0] = image(2001);
    let sent = plan_images(&messages);
    assert!(!sent[0], "the oldest goes as a placeholder");
    assert!(!sent[50], "2001 px is over the limit of a request with more than 20 images");
    assert_eq!(sent.iter().filter(|sent| **sent).count(), 99);
    assert_eq!(first_image_of(&messages)[100], 100);
}
