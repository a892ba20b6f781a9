//! Tests of the stat cache: when a cached hash is trusted, and its file's round trip.

use super::*;
use crate::test_dir::TempDir;

fn stat() -> Stat {
    Stat { size: 10, mtime_ns: 1_000_000_000_000, ctime_ns: 1_000_000_000_500, ino: 42, mode: 0o100644 }
}

fn cached(hashed_after_mtime_ns: i64) -> Cached {
    Cached { stat: stat(), digest: Digest::of(b"x"), hashed_at_ns: stat().mtime_ns + hashed_after_mtime_ns }
}

fn cache_with(key: &str, entry: Cached) -> StatCache {
    let mut cache = StatCache::default();
    cache.insert(key.to_string(), entry);
    cache
}

#[test]
fn a_hash_is_trusted_only_for_the_same_stat_hashed_long_enough_after_the_mtime() {
    let cache = cache_with("a", cached(RACY_NS));
    assert_eq!(cache.lookup("a", &stat()), Some(Digest::of(b"x")));
    assert_eq!(cache.lookup("b", &stat()), None, "unknown key");
    let changes: [fn(&mut Stat); 5] = [
        |stat| stat.size += 1,
        |stat| stat.mtime_ns += 1,
        |stat| stat.ctime_ns += 1,
        |stat| stat.ino += 1,
        |stat| stat.mode |= 0o111,
    ];
    for (index, change) in changes.iter().enumerate() {
        let mut other = stat();
        change(&mut other);
        assert_eq!(cache.lookup("a", &other), None, "stat field {index} changed");
    }
    let racy = cache_with("a", cached(RACY_NS - 1));
    assert_eq!(racy.lookup("a", &stat()), None, "hashed within the racy window: read again");
}

#[test]
fn the_cache_file_round_trips_and_anything_foreign_or_broken_is_left_out() {
    let mut cache = cache_with("dir/with\ttab.rs", cached(RACY_NS));
    cache.insert("plain.rs".into(), cached(5));
    cache.insert("new\nline".into(), cached(5));
    let text = cache.render();
    assert!(text.starts_with("mewcode-stat-cache 1\n"), "{text}");
    assert_eq!(text.lines().count(), 3, "the header and two entries: a key with a newline is not saved");
    let parsed = StatCache::parse(&text);
    assert_eq!(parsed.lookup("dir/with\ttab.rs", &stat()), Some(Digest::of(b"x")));
    assert_eq!(parsed, {
        let mut without = cache_with("dir/with\ttab.rs", cached(RACY_NS));
        without.insert("plain.rs".into(), cached(5));
        without
    });
    assert_eq!(StatCache::parse(&text.replacen("1\n", "2\n", 1)), StatCache::default(), "another format");
    let broken = format!("{text}1\t2\tthree\n10\t1\t1\t1\t1\tnothex\t1\tkey\n");
    assert_eq!(StatCache::parse(&broken), parsed);
}

#[test]
fn the_cache_is_saved_whole_and_a_missing_or_linked_one_loads_empty() {
    let project = TempDir::new("ck-cache");
    assert_eq!(StatCache::load(project.path()), StatCache::default());
    let cache = cache_with("a", cached(RACY_NS));
    cache.save(project.path()).unwrap();
    assert_eq!(StatCache::load(project.path()), cache);
    let mut merged = StatCache::default();
    merged.merge(cache.clone());
    assert_eq!(merged, cache);
    merged.retain(|digest| digest != Digest::of(b"x"));
    assert_eq!(merged, StatCache::default());
    let elsewhere = project.write("elsewhere", cache.render());
    std::fs::remove_file(project.join(".mewcode/checkpoints/stat-cache")).unwrap();
    std::os::unix::fs::symlink(elsewhere, project.join(".mewcode/checkpoints/stat-cache")).unwrap();
    assert_eq!(StatCache::load(project.path()), StatCache::default(), "a link is not our cache");
}

#[test]
fn a_stat_reads_size_times_inode_and_mode_from_metadata() {
    let project = TempDir::new("ck-cache-stat");
    let path = project.write("f", "12345");
    let meta = std::fs::symlink_metadata(&path).unwrap();
    let stat = Stat::of(&meta);
    assert_eq!(
        (stat.size, stat.ino, stat.mode),
        (5, std::os::unix::fs::MetadataExt::ino(&meta), std::os::unix::fs::MetadataExt::mode(&meta))
    );
    let modified = meta.modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap();
    assert_eq!(stat.mtime_ns, modified.as_nanos() as i64);
    assert!(stat.ctime_ns >= stat.mtime_ns - 1_000_000_000);
}

#[test]
fn keys_are_hashed_with_fnv_1a() {
    let hash = |bytes: &[u8]| {
        let mut hasher = Fnv::default();
        hasher.write(bytes);
        hasher.finish()
    };
    assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
}
