"""Calibrate relevance: the best dense cosine and relevance per question, for
questions the sample corpus answers and questions it cannot answer.

    YINZHENG_DATA_DIR=... .venv/bin/python benchmarks/calibrate.py

Needs an index with dense vectors (`python -m core ingest`). A good evidence
threshold lies between the two groups' top relevance.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ANSWERABLE = [
    "Deployment 和 StatefulSet 有什么区别？",
    "如何让 Pod 只在特定节点上运行？",
    "CronJob 的时间表语法是什么？",
    "Service 的 ClusterIP 是怎么分配的？",
    "ConfigMap 能存多大的数据？",
    "Pod 的重启策略有哪些？",
    "怎么让服务只接收本节点的流量？",
    "我的容器一直重启怎么办？",
    "定时任务怎么写？",
    "how do I expose my app to the internet?",
    "Ingress 和 Service 有什么不同？",
    "网络策略默认是允许还是拒绝？",
    "Job 完成后多久会被自动清理？",
    "Init 容器有什么用？",
    "什么是 DaemonSet？",
]
UNANSWERABLE = [
    "消息队列的消费者重平衡是怎么工作的？",
    "Kafka consumer group rebalancing 怎么配置？",
    "今天上海的天气怎么样？",
    "如何用 Python 读取 Excel 文件？",
    "React 的 useEffect 什么时候执行？",
    "MySQL 索引失效的原因有哪些？",
    "怎么申请报销差旅费？",
    "iPhone 电池健康度怎么看？",
    "Spark 的 shuffle 是怎么实现的？",
    "明朝的开国皇帝是谁？",
]


def main() -> None:
    from core.engine import Engine

    engine = Engine.open()
    retriever = engine.retriever()
    embedded, total = engine.index.dense_coverage()
    print(f"dense vectors {embedded}/{total}; evidence threshold {retriever.evidence_threshold}")
    for label, questions in (("answerable", ANSWERABLE), ("unanswerable", UNANSWERABLE)):
        ok = 0
        for q in questions:
            dense = engine.index.dense_search(q, 1)
            res = retriever.retrieve(q)
            top = max((rc.relevance for rc in res.chunks), default=0.0)
            ok += (not res.no_evidence) == (label == "answerable")
            print(
                f"{label:<13} cos={dense[0][1] if dense else float('nan'):.3f} rel={top:.2f} "
                f"{'evidence' if not res.no_evidence else 'no_evidence':<11} {q}"
            )
        print(f"{label}: {ok}/{len(questions)} as expected")


if __name__ == "__main__":
    main()
