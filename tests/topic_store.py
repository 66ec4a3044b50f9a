"""A store of short project memories over a handful of topics, for the recall cache tests."""

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir

TOPICS = ["deploy", "database", "release", "billing", "search", "mobile", "auth"]


def fill(root, count=80):
    """``count`` memories, topic by topic in turn, saved without MEMORY.md lines."""
    store = MemoryDir(root)
    for i in range(count):
        topic = TOPICS[i % len(TOPICS)]
        store.save(
            Memory(
                name=f"{topic} note {i}",
                description=f"How the {topic} work goes, note number {i}",
                type=MemoryType.PROJECT,
                body=f"The {topic} checklist item {i} matters for the quarterly {topic} review.",
            ),
            index=False,
        )
    return store
