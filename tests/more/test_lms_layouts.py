"""`collect` knows the download layouts of Canvas, Moodle, Blackboard and Brightspace: one row per layout,
each collected from the LMS's zip and from the folder it unpacks to."""

import warnings
import zipfile

import pytest

from helpers import write_student

A = "01_square"
B = "00_when_to_write_one"

# A row: the files of a download (path -> "answer" for a filled notebook of 01_square, "stub" for the
# unfilled one, "other:<assignment>" for a filled notebook of another assignment, or any other text for a
# non-notebook file), and what must land in submitted/: "<student>/<assignment>" -> the file it came from.
ROWS = [
    # Canvas: <sortable name>_<user id>_<file id>_<file name>, LATE_ after the name when late.
    pytest.param({"doejane_12345_678901_01_square.ipynb": "answer"},
                 {f"doejane/{A}": "doejane_12345_678901_01_square.ipynb"}, False, id="canvas"),
    pytest.param({"doejane_LATE_12345_678901_01_square.ipynb": "answer"},
                 {f"doejane/{A}": "doejane_LATE_12345_678901_01_square.ipynb"}, False, id="canvas-late"),
    pytest.param({"anon_x7Yz2_678901_01_square.ipynb": "answer", "LATE_anon_Q9r4T_678902_01_square.ipynb": "answer"},
                 {f"anon-x7yz2/{A}": "anon_x7Yz2_678901_01_square.ipynb",
                  f"anon-q9r4t/{A}": "LATE_anon_Q9r4T_678902_01_square.ipynb"}, False, id="canvas-anonymous"),
    pytest.param({"doejane_12345_678901_my work-1.ipynb": "answer"},
                 {f"doejane/{A}": "doejane_12345_678901_my work-1.ipynb"}, False, id="canvas-renamed-file"),
    pytest.param({"doejane_111_678901_01_square.ipynb": "answer", "doejane_222_678902_01_square.ipynb": "stub"},
                 {f"doejane-111/{A}": "doejane_111_678901_01_square.ipynb",
                  f"doejane-222/{A}": "doejane_222_678902_01_square.ipynb"}, True, id="canvas-same-name"),
    # Moodle: <full name>_<participant id>_assignsubmission_file[_]/<file>, or flat without folders.
    pytest.param({"Jane Doe_12345_assignsubmission_file/01_square.ipynb": "answer"},
                 {f"jane-doe/{A}": "Jane Doe_12345_assignsubmission_file/01_square.ipynb"}, False, id="moodle-4"),
    pytest.param({"Jane Doe_12345_assignsubmission_file_/01_square.ipynb": "answer",
                  "Jane Doe_12345_assignsubmission_onlinetext_/onlinetext.html": "<p>see the notebook</p>"},
                 {f"jane-doe/{A}": "Jane Doe_12345_assignsubmission_file_/01_square.ipynb"}, False, id="moodle-3"),
    pytest.param({"Jane Doe_12345_assignsubmission_file_01_square.ipynb": "answer"},
                 {f"jane-doe/{A}": "Jane Doe_12345_assignsubmission_file_01_square.ipynb"}, False,
                 id="moodle-no-folders"),
    pytest.param({"José Núñez_777_assignsubmission_file/work/01_square.ipynb": "answer"},
                 {f"jose-nunez/{A}": "José Núñez_777_assignsubmission_file/work/01_square.ipynb"}, False,
                 id="moodle-accents-subfolder"),
    pytest.param({"Participant_4242_assignsubmission_file/01_square.ipynb": "answer"},
                 {f"participant-4242/{A}": "Participant_4242_assignsubmission_file/01_square.ipynb"}, False,
                 id="moodle-anonymous-marking"),
    pytest.param({"Jane Doe_111_assignsubmission_file/01_square.ipynb": "answer",
                  "Jane Doe_222_assignsubmission_file/01_square.ipynb": "stub"},
                 {f"jane-doe-111/{A}": "Jane Doe_111_assignsubmission_file/01_square.ipynb",
                  f"jane-doe-222/{A}": "Jane Doe_222_assignsubmission_file/01_square.ipynb"}, True,
                 id="moodle-same-name"),
    # Participant ids are per Moodle assignment: one student, two downloads, one id.
    pytest.param({"CS101-Week 1-99/Jane Doe_111_assignsubmission_file/01_square.ipynb": "answer",
                  "CS101-Week 2-98/Jane Doe_555_assignsubmission_file/intro.ipynb": f"other:{B}"},
                 {f"jane-doe/{A}": "CS101-Week 1-99/Jane Doe_111_assignsubmission_file/01_square.ipynb",
                  f"jane-doe/{B}": "CS101-Week 2-98/Jane Doe_555_assignsubmission_file/intro.ipynb"}, False,
                 id="moodle-two-assignments"),
    # Blackboard: <assignment>_<username>_attempt_<time>_<file>, and a .txt about the attempt.
    pytest.param({"Week 1_jdoe3_attempt_2024-01-01-12-00-00_01_square.ipynb": "answer",
                  "Week 1_jdoe3_attempt_2024-01-01-12-00-00.txt": "Name: Jane Doe (jdoe3)\nAssignment: Week 1\n"},
                 {f"jdoe3/{A}": "Week 1_jdoe3_attempt_2024-01-01-12-00-00_01_square.ipynb"}, False,
                 id="blackboard"),
    pytest.param({"Week 1_jdoe3_attempt_2024-01-02-09-30-00_01_square.ipynb": "answer",
                  "Week 1_jdoe3_attempt_2024-01-01-23-59-00_01_square.ipynb": "stub"},
                 {f"jdoe3/{A}": "Week 1_jdoe3_attempt_2024-01-02-09-30-00_01_square.ipynb"}, False,
                 id="blackboard-latest-attempt"),
    pytest.param({"Lab_1_jane_doe_attempt_2024-01-01-12-00-00_01_square.ipynb": "answer",
                  "Lab_1_jane_doe_attempt_2024-01-01-12-00-00.txt": "Name: Jane Doe (jane_doe)\nAssignment: Lab_1\n"},
                 {f"jane_doe/{A}": "Lab_1_jane_doe_attempt_2024-01-01-12-00-00_01_square.ipynb"}, False,
                 id="blackboard-username-with-underscore"),
    # Brightspace: <ids> - <full name> - <date> - <file>, or a folder of that name per submission.
    pytest.param({"12345-67890 - Jane Doe - Jan 1, 2024 1200 PM - 01_square.ipynb": "answer",
                  "index.html": "<html>submissions</html>"},
                 {f"jane-doe/{A}": "12345-67890 - Jane Doe - Jan 1, 2024 1200 PM - 01_square.ipynb"}, False,
                 id="brightspace"),
    pytest.param({"Week 1/12345-67890 - Jane Doe - Jan 1, 2024 1200 PM/01_square.ipynb": "answer",
                  "Week 1/index.html": "<html>submissions</html>"},
                 {f"jane-doe/{A}": "Week 1/12345-67890 - Jane Doe - Jan 1, 2024 1200 PM/01_square.ipynb"}, False,
                 id="brightspace-folders"),
    pytest.param({"12345-67890 - Jane Doe - Jan 1, 2024 1159 PM - 01_square.ipynb": "stub",
                  "12346-67891 - Jane Doe - Jan 2, 2024 105 AM - 01_square.ipynb": "answer",
                  "12347-67892 - Ann Lee - Jan 3, 2024 1205 AM - 01_square.ipynb": "stub",
                  "12348-67893 - Ann Lee - Jan 2, 2024 1130 PM - 01_square.ipynb": "answer"},
                 {f"jane-doe/{A}": "12346-67891 - Jane Doe - Jan 2, 2024 105 AM - 01_square.ipynb",
                  f"ann-lee/{A}": "12347-67892 - Ann Lee - Jan 3, 2024 1205 AM - 01_square.ipynb"}, False,
                 id="brightspace-latest-submission"),
    # No LMS: the generic rules.
    pytest.param({"jdoe_12345_67890_01_square.ipynb": "answer", "mroe/whatever name.ipynb": "answer",
                  "kim.ipynb": "answer", "notes.txt": "not a notebook"},
                 {f"jdoe/{A}": "jdoe_12345_67890_01_square.ipynb", f"mroe/{A}": "mroe/whatever name.ipynb",
                  f"kim/{A}": "kim.ipynb"}, False, id="plain"),
]


def build(folder, files):
    for rel, kind in files.items():
        path = folder / rel
        if kind == "answer":
            write_student(path, A)
        elif kind == "stub":
            write_student(path, A, fill=False)
        elif kind.startswith("other:"):
            write_student(path, kind.removeprefix("other:"))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(kind)


def notebook_name(assignment):
    from autograder.engine import notebooks

    return next(s.name for s in notebooks.sources() if s.assignment == assignment)


@pytest.mark.parametrize("packaging", ["zip", "folder"])
@pytest.mark.parametrize("files, expected, clash", ROWS)
def test_lms_layout(grading_home, tmp_path, files, expected, clash, packaging):
    from autograder.classroom import layouts

    folder = tmp_path / "download"
    build(folder, files)
    source = folder
    if packaging == "zip":
        source = tmp_path / "download.zip"
        with zipfile.ZipFile(source, "w") as archive:
            for rel in files:
                archive.write(folder / rel, rel)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        collected = layouts.collect(source)
    clashes = [w for w in caught if "are all named" in str(w.message)]
    assert bool(clashes) == clash, [str(w.message) for w in caught]

    assert sorted(f"{s.student}/{s.assignment}" for s in collected) == sorted(expected)
    landed = sorted(str(p.relative_to(grading_home / "submitted").parent)
                    for p in (grading_home / "submitted").glob("*/*/*.ipynb"))
    assert landed == sorted(expected), "nothing else lands in submitted/"
    for key, rel in expected.items():
        student, assignment = key.split("/")
        target = grading_home / "submitted" / student / assignment / f"{notebook_name(assignment)}.ipynb"
        assert target.read_bytes() == (folder / rel).read_bytes(), f"{key} must come from {rel}"


def test_a_second_download_keeps_the_ids_and_replaces_only_changed_files(grading_home, tmp_path):
    """Collecting the same Moodle assignment again (a late hand-in added) gives every student the same id."""
    from autograder.classroom import layouts

    first = tmp_path / "first"
    build(first, {"Jane Doe_111_assignsubmission_file/01_square.ipynb": "answer",
                  "Jane Doe_222_assignsubmission_file/01_square.ipynb": "stub"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = sorted(s.student for s in layouts.collect(first))
    target = grading_home / "submitted" / "jane-doe-111" / A / f"{A}.ipynb"
    stamp = target.stat().st_mtime_ns

    second = tmp_path / "second"
    build(second, {"Jane Doe_111_assignsubmission_file/01_square.ipynb": "answer",
                   "Jane Doe_222_assignsubmission_file/01_square.ipynb": "answer",
                   "Kim Park_333_assignsubmission_file/01_square.ipynb": "answer"})
    (second / "Jane Doe_111_assignsubmission_file/01_square.ipynb").write_bytes(
        (first / "Jane Doe_111_assignsubmission_file/01_square.ipynb").read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        after = sorted(s.student for s in layouts.collect(second))
    assert before == ["jane-doe-111", "jane-doe-222"]
    assert after == ["jane-doe-111", "jane-doe-222", "kim-park"]
    assert target.stat().st_mtime_ns == stamp, "an unchanged file is not copied again"
    assert (grading_home / "submitted" / "jane-doe-222" / A / f"{A}.ipynb").read_bytes() == (
        second / "Jane Doe_222_assignsubmission_file/01_square.ipynb").read_bytes()


@pytest.mark.parametrize("name, expected", [
    ("Jane Doe", "jane-doe"),
    ("José Núñez-García", "jose-nunez-garcia"),
    ("O'Brien, Mary  Ann", "o-brien-mary-ann"),
    ("王小明", "王小明"),
])
def test_names_become_ids(name, expected):
    from autograder.classroom.layouts import name_id

    assert name_id(name) == expected


# ------------------------------------------------------------------------------------ zip member names
#
# Whether a zip member's name is UTF-8 is said by flag bit 11; without it the zip spec says cp437. Info-ZIP
# on Linux writes the UTF-8 bytes without the flag (with the UTF-8 name again in a "Unicode Path" extra
# field, 0x7075, where it was built to), older Windows tools write cp437 without the flag. Each zip below
# is written byte by byte, as those tools write it, and must give the student the id its unpacked folder
# gives.

def raw_zip(members: list[tuple[bytes, bytes, int, bytes]]) -> bytes:
    """A stored (uncompressed) zip of (name bytes, data, flag bits, extra field) members."""
    import struct
    import zlib

    local, central = b"", b""
    for name, data, flags, extra in members:
        crc = zlib.crc32(data)
        header = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, flags, 0, 0, 0x21, crc, len(data), len(data),
                             len(name), len(extra))
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, flags, 0, 0, 0x21, crc, len(data),
                               len(data), len(name), len(extra), 0, 0, 0, 0o100644 << 16, len(local)) + name + extra
        local += header + name + extra + data
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(local), 0)
    return local + central + end


def unicode_path(name: str, raw: bytes) -> bytes:
    """Info-ZIP's Unicode Path extra field: version 1, the CRC-32 of the header's name, the UTF-8 name."""
    import struct
    import zlib

    body = b"\x01" + struct.pack("<I", zlib.crc32(raw)) + name.encode("utf-8")
    return struct.pack("<HH", 0x7075, len(body)) + body


FOLDER = "Jürgen Müller_4242_assignsubmission_file"
ZIPS = [  # name bytes of the notebook, flag bits, extra field
    pytest.param(f"{FOLDER}/01_square.ipynb".encode("utf-8"), 0x800, b"", id="utf8-flagged"),
    pytest.param(f"{FOLDER}/01_square.ipynb".encode("utf-8"), 0, b"", id="info-zip-linux-utf8-unflagged"),
    pytest.param(f"{FOLDER}/01_square.ipynb".encode("utf-8"), 0,
                 unicode_path(f"{FOLDER}/01_square.ipynb", f"{FOLDER}/01_square.ipynb".encode("utf-8")),
                 id="info-zip-with-unicode-path-field"),
    pytest.param(f"{FOLDER}/01_square.ipynb".encode("cp437"), 0, b"", id="windows-cp437"),
    pytest.param(f"{FOLDER}/01_square.ipynb".encode("latin-1"), 0,
                 unicode_path(f"{FOLDER}/01_square.ipynb", f"{FOLDER}/01_square.ipynb".encode("latin-1")),
                 id="latin1-local-name-with-unicode-path-field"),
    pytest.param(f"{FOLDER}\\01_square.ipynb".encode("cp437"), 0, b"", id="windows-backslashes"),
]


@pytest.mark.parametrize("name, flags, extra", ZIPS)
def test_zip_names_give_the_unpacked_folders_id(grading_home, tmp_path, name, flags, extra):
    import json

    from autograder.classroom import layouts, lms

    folder = tmp_path / "unpacked"
    notebook = write_student(folder / FOLDER / "01_square.ipynb", A)
    from_folder = sorted(s.student for s in layouts.collect(folder))
    assert from_folder == ["jurgen-muller"]

    archive = tmp_path / "download.zip"
    archive.write_bytes(raw_zip([(name, notebook.read_bytes(), flags, extra)]))
    with zipfile.ZipFile(archive) as z:  # the zip is well formed: Python reads it (under some name)
        assert z.testzip() is None and len(z.infolist()) == 1
    collected = lms.collect(archive)
    assert [s.student for s in collected] == from_folder, "the zip and its folder give one id"
    ids = json.loads((grading_home / lms.IDENTITIES).read_text(encoding="utf-8"))
    assert ids["jurgen-muller"]["name"] == "Jürgen Müller"
    assert sorted(p.name for p in (grading_home / "submitted").iterdir()) == ["jurgen-muller"]


def test_a_name_that_is_not_utf8_is_read_as_cp437():
    from autograder.classroom.layouts import zip_member_name

    info = zipfile.ZipInfo("x")
    info.orig_filename = b"J\x81rgen".decode("cp437")  # as zipfile decodes an unflagged name
    info.flag_bits = 0
    assert zip_member_name(info) == "Jürgen"
    info.extra = unicode_path("Jörgen", b"something else")  # a field for another name (CRC differs): ignored
    assert zip_member_name(info) == "Jürgen"


def test_a_zip_cannot_write_outside_its_folder(grading_home, tmp_path):
    """A member whose path leaves the folder is refused with a sentence naming it; the rest is collected."""
    from autograder.classroom import layouts
    from autograder.classroom.layouts import CollectLog

    good = write_student(tmp_path / "good.ipynb", A).read_bytes()
    for evil in ("../escape.ipynb", "/etc/escape.ipynb", "a\\..\\..\\escape.ipynb", "C:/escape.ipynb"):
        archive = tmp_path / "evil.zip"
        archive.write_bytes(raw_zip([(evil.encode(), b"{}", 0, b""), (b"kim_1_2_01_square.ipynb", good, 0, b"")]))
        log = CollectLog()
        assert [s.student for s in layouts.collect(archive, log=log)] == ["kim"]
        assert [line for line in log.refused if "escape.ipynb" in line and "leaves the download's folder" in line], \
            log.refused
    assert not (tmp_path / "escape.ipynb").exists()
