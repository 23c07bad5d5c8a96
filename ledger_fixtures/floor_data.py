"""``floor/``: groups 1-3 alone exceed the cap, and the cut splits a 4-byte character.

An APAC (ja/zh/ko) variant of the triage agent. :func:`floor_space` picks the number of
phrase-bank rows in ``agents.md`` and the length of its layout-padding comment so that
byte 24000 of the pack (the first byte past the cap) is the 3rd byte of a 4-byte
character in the ``ko-tone`` eval block. The offsets come from the package's own layout
of a probe space (:mod:`layout`), never from a model of the pack rules.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

from documents import Doc, Pairs, Space
from experiments import QUEUES
from layout import CAP_BYTES, Layout, lay_out

KO_TONE = ".ledger/evals/ko-tone.md"
"""The eval block the cut must fall in (the 2nd of the three active evals, in slug order)."""

FLOOR_OPENINGS = [
    ("お問い合わせありがとうございます", "感谢您的来信", "문의해 주셔서 감사합니다"),
    ("ご不便をおかけして申し訳ありません", "给您带来不便，非常抱歉", "불편을 드려 죄송합니다"),
    ("ご連絡いただきありがとうございます", "谢谢您联系我们", "연락 주셔서 감사합니다"),
    ("確認いたしました", "我们已经确认", "확인했습니다"),
]
FLOOR_CLOSINGS = [
    ("担当チームが確認いたします", "我们的团队会尽快处理", "담당 팀이 확인하겠습니다"),
    ("24時間以内にご連絡いたします", "我们会在24小时内回复您", "24시간 이내에 연락드리겠습니다"),
    ("詳細をお知らせください", "请告诉我们更多细节", "자세한 내용을 알려주세요"),
    ("引き続きよろしくお願いいたします", "感谢您的耐心等待", "양해해 주셔서 감사합니다"),
    ("返金手続きを開始しました", "退款流程已经开始", "환불 절차를 시작했습니다"),
]
FLOOR_QUEUE_EMOJI = {
    "billing": "💳",
    "technical": "🛠️",
    "account": "🔐",
    "shipping": "📦",
    "abuse": "🚨",
}
FLOOR_PRIO_EMOJI: list[str] = ["🔴", "🟠", "🟡", "🟢"]


def floor_agents(rows: int, pad: int) -> str:
    """``agents.md``: a CJK and emoji phrase bank of ``rows`` rows, ``pad`` bytes of padding."""
    head = """\
---
data_class: public
owner: triage-apac
---
# エージェント向け指示 / 智能体说明 / 에이전트 지침 🌏

This repo holds the APAC build of the triage agent. Tickets arrive in Japanese,
Chinese and Korean; the agent routes them, sets a priority and drafts a reply
from the phrase bank below. 絵文字はキューと優先度の目印です。表情符号标记队列和优先级。

| queue | 🏷️ | 日本語 | 中文 | 한국어 |
|---|---|---|---|---|
| billing | 💳 | 請求 | 账单 | 청구 |
| technical | 🛠️ | 技術 | 技术 | 기술 |
| account | 🔐 | アカウント | 账户 | 계정 |
| shipping | 📦 | 配送 | 物流 | 배송 |
| abuse | 🚨 | 不正利用 | 滥用 | 악용 |

## Phrase bank 📚

Use these phrases verbatim; do not translate them yourself. 翻訳しないこと。不要自行翻译。

"""
    lines = [head]
    for r in range(rows):
        q = QUEUES[r % 5]
        p = (r // 5) % 4
        o = FLOOR_OPENINGS[r % len(FLOOR_OPENINGS)]
        c = FLOOR_CLOSINGS[(r * 3) % len(FLOOR_CLOSINGS)]
        lines.append(
            f"- {FLOOR_QUEUE_EMOJI[q]}{FLOOR_PRIO_EMOJI[p]} {q} P{p + 1} #{r + 1:03d}: "
            f"ja「{o[0]}。{c[0]}🙏」 zh「{o[1]}，{c[1]}🙏」 ko「{o[2]}. {c[2]} 🙏」\n"
        )
    lines.append("\n## Review\n\n")
    lines.append(f"<!-- layout padding, keeps the fixture's byte offsets stable: {'x' * pad} -->\n")
    # deliberately no final newline: the pack appends one (spec section 5)
    lines.append("最終確認 / 最后审核 / 최종 검토: triage-apac 🎌🐉🐯")
    return "".join(lines)


FLOOR_DOCUMENTS: list[Doc] = [
    Doc(
        "harnesses",
        "apac-router-v1.md",
        [
            ("title", "APAC router v1 🌏 多言語ルーター"),
            ("slug", "apac-router-v1"),
            ("status", "active"),
            ("updated_at", "2026-10-20"),
            ("owner", "jun"),
            ("model", "router-llm-2026-08"),
            ("languages", ["ja", "zh", "ko"]),
            ("tools", ["kb_search", "queue_assign", "set_priority"]),
            ("notes", "言語判定 → ルーティング → 返信草案 ✅"),
            ("data_class", "internal"),
        ],
        "Routes after language detection; drafts from the phrase bank.\n",
    ),
    Doc(
        "harnesses",
        "apac-router-v0.md",
        [
            ("title", "APAC router v0"),
            ("slug", "apac-router-v0"),
            ("status", "retired"),
            ("updated_at", "2026-07-01"),
        ],
        "Retired.\n",
    ),
    Doc(
        "evals",
        "ja-routing.md",
        [
            ("title", "日本語ルーティング精度 🎯"),
            ("slug", "ja-routing"),
            ("status", "active"),
            ("updated_at", "2026-10-10"),
            ("owner", "jun"),
            ("dataset", "data/evals/ja-routing-2026-10.jsonl"),
            ("size", "600"),
            ("queues", ["💳 billing", "🛠️ technical", "🔐 account", "📦 shipping", "🚨 abuse"]),
        ],
        """\
日本語チケットのルーティング精度。

## Metrics

- accuracy 🎯: ラベル通りのキューに入った割合
- macro_f1 📊: 5キューの平均F1
""",
    ),
    Doc(
        "evals",
        "ko-tone.md",
        [
            ("title", "한국어 답변 톤 평가 😀😐😠"),
            ("slug", "ko-tone"),
            ("status", "active"),
            ("updated_at", "2026-10-12"),
            ("owner", "mina"),
            ("dataset", "data/evals/ko-tone-2026-10.jsonl"),
            ("size", "250"),
            ("labels", ["😀 긍정", "😐 중립", "😠 부정", "🙏 사과", "🎉 축하"]),
            (
                "legend",
                "😀😀😀😀😀😀😀😀😀😀😐😐😐😐😐😐😐😐😐😐😠😠😠😠😠😠😠😠😠😠🙏🙏🙏🙏🙏🙏🙏🙏🙏🙏",
            ),
        ],
        """\
판정 모델이 답변 초안의 톤을 평가합니다.

## Metrics

- tone_match 😀: 라벨과 같은 톤의 비율
- apology_rate 🙏: 사과 문구가 들어간 비율
""",
    ),
    Doc(
        "evals",
        "zh-routing.md",
        [
            ("title", "中文路由准确率 🐉"),
            ("slug", "zh-routing"),
            ("status", "active"),
            ("updated_at", "2026-10-14"),
            ("owner", "wei"),
            ("dataset", "data/evals/zh-routing-2026-10.jsonl"),
            ("size", "700"),
        ],
        """\
中文工单的路由准确率。

## Metrics

- accuracy 🎯: 进入正确队列的比例
- macro_f1 📊: 五个队列的平均F1
""",
    ),
    Doc(
        "evals",
        "ko-routing-old.md",
        [
            ("title", "한국어 라우팅 (old)"),
            ("slug", "ko-routing-old"),
            ("status", "deprecated"),
            ("updated_at", "2026-06-10"),
        ],
        "## Metrics\n\n- accuracy\n",
    ),
    Doc(
        "findings",
        "ja-keigo.md",
        [
            ("title", "敬語の誤りは請求キューに多い 💳"),
            ("slug", "ja-keigo"),
            ("status", "current"),
            ("updated_at", "2026-10-25"),
            ("owner", "jun"),
        ],
        "請求関連の返信で敬語の誤りが多い。\n",
    ),
    Doc(
        "findings",
        "zh-traditional.md",
        [
            ("title", "繁體中文工單被誤判為日語"),
            ("slug", "zh-traditional"),
            ("status", "current"),
            ("updated_at", "2026-10-22T08:00:00+08:00"),
            ("owner", "wei"),
            ("data_class", "internal"),
        ],
        "繁體字被語言偵測誤判。\n",
    ),
    Doc(
        "findings",
        "ko-spacing.md",
        [
            ("title", "Korean spacing errors hurt tone scores"),
            ("slug", "ko-spacing"),
            ("status", "superseded"),
            ("updated_at", "2026-09-01"),
        ],
        "Superseded.\n",
    ),
    Doc(
        "decisions",
        "0001-phrase-bank.md",
        [
            ("title", "返信はフレーズバンクから組み立てる 📚"),
            ("slug", "0001-phrase-bank"),
            ("status", "accepted"),
            ("updated_at", "2026-09-15"),
            ("deciders", ["jun", "wei", "mina"]),
        ],
        "Drafts are assembled from approved phrases only.\n",
    ),
    Doc(
        "decisions",
        "0002-detect-language-first.md",
        [
            ("title", "Detect language before routing"),
            ("slug", "0002-detect-language-first"),
            ("status", "accepted"),
            ("updated_at", "2026-10-01"),
            ("data_class", "confidential"),
        ],
        "Language detection runs first.\n",
    ),
    Doc(
        "decisions",
        "0003-machine-translate.md",
        [
            ("title", "Machine-translate tickets to English"),
            ("slug", "0003-machine-translate"),
            ("status", "rejected"),
            ("updated_at", "2026-08-20"),
        ],
        "Rejected: loses tone.\n",
    ),
]


def floor_experiments() -> list[Doc]:
    docs = []
    langs = ["ja", "zh", "ko"]
    for i in range(1, 13):
        lang = langs[i % 3]
        day = dt.date(2026, 10, 1) + dt.timedelta(days=i * 3)
        pairs: Pairs = [
            ("title", f"{lang} routing run {i} {FLOOR_PRIO_EMOJI[i % 4]}"),
            ("slug", f"apac-exp-{i:02d}"),
            ("status", "done" if i < 11 else "running"),
            ("updated_at", day.isoformat()),
            ("harness", "apac-router-v1"),
            ("eval", "ko-tone" if lang == "ko" else f"{lang}-routing"),
            ("owner", {"ja": "jun", "zh": "wei", "ko": "mina"}[lang]),
            ("hypothesis", f"Phrase bank v{i} improves {lang} results 📈"),
            ("result", [("accuracy", f"0.{80 + i}")]),
        ]
        docs.append(Doc("experiments", f"apac-exp-{i:02d}.md", pairs, "Run log in the notebook.\n"))
    return docs


def floor_docs() -> list[Doc]:
    return FLOOR_DOCUMENTS + floor_experiments()


def floor_space() -> Space:
    """The floor space, with the fewest phrase-bank rows (then the least padding) that
    put the cut where it must be.

    One probe build per row count: the padding sits in ``agents.md``, before the cut, so
    it only shifts every later byte by its length.
    """
    docs = floor_docs()
    with tempfile.TemporaryDirectory(prefix="ledger-fixtures-floor-") as tmp:
        for rows in range(0, 400):
            probe = Space("floor", floor_agents(rows, 0), docs).write(Path(tmp))
            pad = cut_padding(lay_out(probe))
            if pad is not None:
                return Space("floor", floor_agents(rows, pad), docs)
    raise SystemExit("floor: no layout found")


def cut_padding(layout: Layout) -> int | None:
    """The padding (0-39 bytes) that moves byte ``CAP_BYTES`` onto the 3rd byte of a 4-byte
    character in the ko-tone block of this unpadded layout, or ``None``."""
    whole = layout.whole
    if len(whole) < CAP_BYTES:  # grow the phrase bank first, never pad up to the cap
        return None
    for pad in range(0, 40):
        off = CAP_BYTES - pad  # the byte that padding by `pad` moves to CAP_BYTES
        if off < 0 or off >= len(whole):
            continue
        lead = off
        while (whole[lead] & 0xC0) == 0x80:
            lead -= 1
        if whole[lead] >= 0xF0 and off - lead == 2 and layout.block_at(lead).path == KO_TONE:
            return pad
    return None
