from datetime import UTC, datetime

from memdir.model.timefields import civil_from_days, days_from_civil, iso_mtime


def reference(mtime_ms: float) -> str:
    moment = datetime.fromtimestamp(int(mtime_ms) // 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(mtime_ms) % 1000:03d}Z"


def test_iso_mtime_formats_as_the_standard_library_does_without_importing_it():
    samples = [0, 0.5, -1, -999.5, 86_399_999, 951_782_400_000, 951_868_799_999, 4_102_444_800_000]
    samples += [step * 7_919_345_678.9 for step in range(-3_000, 30_000, 37)]
    for value in samples:
        assert iso_mtime(value) == reference(value), value


def test_civil_from_days_inverts_days_from_civil():
    for days in range(-800_000, 800_000, 997):
        assert days_from_civil(*civil_from_days(days)) == days
