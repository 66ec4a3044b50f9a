"""Chinese sentences of the held-out sessions set: frames, rule and user banks, and six projects.

Hand-written for this set only, in the way a Chinese-speaking team writes its notes (not
translated from the English set); the slots are explained in ``sessions_schema.py``.
"""

from __future__ import annotations

from sessions_schema import Item, Language, Version, frames
from sessions_themes_zh import THEMES

from memdir.model.memory_type import MemoryType

__all__ = ["LANGUAGE"]

P, F, R, U = MemoryType.PROJECT, MemoryType.FEEDBACK, MemoryType.REFERENCE, MemoryType.USER

KINDS = {
    "port": frames(
        P,
        """
        names
        - {e} {c} 端口
        - {C} 端口（{E}）
        - {e}环境 {c} 的端口
        renames
        - {e} {c} 端口变更
        - {C} 换到 {v} 端口（{E}）
        - {e} {c} 新端口
        descriptions
        - {e}环境的 {c} 监听 {v} 端口，不是默认端口
        - {c} 在 {e} 上用的是 {v} 端口
        - {e} 的 {c} 端口是 {v}
        redescriptions
        - {e} 的 {c} 端口从 {old} 改成了 {v}
        - {c}（{e}）现在走 {v} 端口
        - {day} 起 {e} {c} 改用 {v} 端口
        states
        - {e}环境里 {c} 跑在 {v} 端口。
        - {c} 在 {e} 上监听 {v}。
        - {e} 的 {c} 对外暴露的是 {v} 端口。
        restates
        - {e} 的 {c} 端口已从 {old} 换成 {v}。
        - {day} 之后 {e} {c} 只能通过 {v} 端口访问，{old} 已经不通了。
        - {c} 在 {e} 上改到了 {v} 端口。
        whys
        - 那台机器上默认端口被别的进程占了。
        - {e} 一台机器上跑好几个服务，每个分一个端口。
        - {e} 的 docker-compose 就是这么映射的，历史原因。
        rewhys
        - {day} 运维把 {e} 迁到共享集群，端口重新分配了。
        - 现在连接要先过一层连接池代理，代理有自己的端口。
        - 原端口和监控 exporter 冲突。
        hows
        - {e} 的连接串和端口转发都用 {v}。
        - 连 {e} 报 connection refused 时先检查端口。
        - 本地 .env 指向 {e} 时要显式写端口。
        questions
        - {eq}的{cq}是哪个端口？
        - 连{eq}的{cq}一直 connection refused，端口到底是多少？
        - 本地要转发{eq}上的{cq}，用哪个端口？
        """,
    ),
    "host": frames(
        P,
        """
        names
        - {C} 主机（{E}）
        - {e} {c} 主机名
        - {c} 在 {e} 的地址
        renames
        - {C} 迁移主机（{E}）
        - {e} {c} 换了新主机
        - {e} {c} 主机名变更
        descriptions
        - {e} 的 {c} 在 {v}
        - {c}（{e}）主机名：{v}
        - {e}环境 {c} 部署在 {v}
        redescriptions
        - {e} 的 {c} 迁到了 {v}
        - {c} 在 {e} 换到 {v}，旧机器下线
        - {day} 起 {e} {c} 用 {v}
        states
        - {e} 的 {c} 部署在 `{v}`。
        - {c} 的 {e} 实例跑在 `{v}` 上。
        - 访问 {e} 的 {c} 请用 `{v}`。
        restates
        - {e} 的 {c} 已从 `{old}` 迁到 `{v}`。
        - {e} {c} 现在在 `{v}`，`{old}` 正在下线。
        - {c}（{e}）新主机：`{v}`（{day} 起）。
        whys
        - {e} 的机器不在公网 DNS 里，必须写全名。
        - 有两台很像的机器，另一台是只读副本。
        - VPN 的内网 DNS 只解析这个名字。
        rewhys
        - 旧机器在 {day} 的迁移中下线了。
        - 运维把 {e} 合并到了新机器上。
        - 服务迁到了托管集群。
        hows
        - {e} 的配置和 ssh 都用 `{v}`。
        - 脚本连接卡住时先核对主机名。
        - 还指向旧主机的本地 .env 要改掉。
        questions
        - {eq}的{cq}主机名是什么？
        - {cq}在{eq}部署在哪台机器上？
        - 要 ssh 上{eq}的{cq}，连哪台？
        """,
    ),
    "replicas": frames(
        P,
        """
        names
        - {C} 副本数（{E}）
        - {e} {c} 副本数
        - {e} 上 {c} 跑几个 pod
        renames
        - {C} 扩缩到 {v}（{E}）
        - {e} {c} 副本数调整
        - {e} {c} 扩缩容
        descriptions
        - {e} 的 {c} 跑 {v} 个副本
        - {c} 在 {e} 部署了 {v} 个 pod
        - {e} {c} 副本数为 {v}
        redescriptions
        - {e} 的 {c} 副本数从 {old} 调到 {v}
        - {e} {c} 现在 {v} 个 pod
        - {c}（{e}）副本数改为 {v}
        states
        - {e} 的 {c} 跑 {v} 个副本。
        - {e} 上有 {v} 个 {c} 的 pod。
        - {c} 在 {e} 固定 {v} 个副本。
        restates
        - {e} 的 {c} 从 {old} 个副本调到了 {v} 个。
        - {day} 把 {e} {c} 调成了 {v} 个副本。
        - {c}（{e}）已扩缩到 {v} 个 pod。
        whys
        - HPA 的下限就是这个值。
        - 上次副本太多把数据库连接打满了。
        - 按当前流量加发布时的余量算的。
        rewhys
        - {day} 压测后重新评估了副本数。
        - HPA 的下限改了。
        - 按当前流量重新算了一遍。
        hows
        - 别手动改副本数，改 {e} 的 Helm values。
        - 看 {e} 的日志和监控时按 {v} 个 pod 来理解。
        - 连接池配置要和 {v} 个 pod 对得上。
        questions
        - {eq}的{cq}跑了几个副本？
        - {cq}在{eq}有几个 pod？
        - {eq}上{cq}开了多少个实例？
        """,
    ),
    "owner": frames(
        P,
        """
        names
        - {C} 负责人
        - {c} 归谁管
        - {C} owner
        renames
        - {C} 换负责人了
        - {C} 负责人变更
        - {C} 交接给{v}
        descriptions
        - {v}负责 {c}，相关 PR 找{v} review
        - {c} 归{v}负责
        - {c} 相关的问题找{v}
        redescriptions
        - {v}从{old}手里接手了 {c}
        - {c} 现在由{v}负责
        - {c} 的负责人换成了{v}
        states
        - {c} 的负责人是{v}。
        - {c} 归{v}管，改动都要{v} review。
        - {v}负责 {c}。
        restates
        - {day} 起 {c} 由{v}接手，{old}不再负责。
        - {c} 换了负责人：{v}。{old}调去别的组了。
        - {c} 的 owner 已经交接给{v}。
        whys
        - CODEOWNERS 会自动把 review 分给{v}。
        - 代码大部分是{v}写的，最了解上下文。
        - 季度初组里按模块分了负责人。
        rewhys
        - {old}调到别的组了。
        - {day} 组织架构调整，模块重新分配。
        - {old}休长假前正式交接了。
        hows
        - 改 {c} 的 PR 要 @{v}。
        - {c} 的问题先问{v}。
        - 合并 {c} 的改动前加{v}为 reviewer。
        questions
        - {cq}现在谁负责？
        - 改了{cq}的代码，找谁 review？
        - {cq}的问题应该问谁？
        """,
    ),
    "dashboard": frames(
        R,
        """
        names
        - {C} 监控大盘
        - {c} 的 Grafana 面板
        - {C} 监控
        renames
        - {C} 监控大盘迁移
        - {C} 新监控面板
        - {C} 大盘（新链接）
        descriptions
        - {c} 的 Grafana 大盘：{v}
        - 看 {c} 指标的地方
        - {c} 的延迟和错误率面板在 {v}
        redescriptions
        - {c} 的大盘搬到了 {v}
        - {c} 监控新链接：{v}
        - {c} 面板重建在 {v}
        states
        - {c} 的监控在 {v}。
        - {c} 大盘：{v}
        - {c} 的延迟、错误率、饱和度都在 {v}。
        restates
        - {c} 的大盘迁到了 {v}，旧的 {old} 不再维护。
        - {c} 有了重建的大盘：{v}。
        - 以后看 {c} 指标用 {v}。
        whys
        - {c} 告警时先看这个。
        - 最有用的是 p99 那个面板。
        - 可以按接口拆开看。
        rewhys
        - {day} 整理 Grafana 目录时搬的。
        - 指标改名后旧大盘的查询坏了。
        - 新大盘把原来两个合并了。
        hows
        - {c} 的故障记录里贴上这个链接。
        - 时间范围默认 6 小时，排查慢泄漏要拉长。
        - 排查 {c} 时先打开它。
        questions
        - {cq}的监控大盘在哪？
        - {cq}的指标面板链接是什么？
        - 去哪看{cq}的延迟曲线？
        """,
    ),
    "date": frames(
        P,
        """
        names
        - {X}日期
        - {X}时间安排
        - {x}定在哪天
        renames
        - {X}延期
        - {X}改期
        - {X}新日期
        descriptions
        - {x}定在 {v}
        - {x}计划 {v} 进行
        - {x}目标日期：{v}
        redescriptions
        - {x}推迟到 {v}（原定 {old}）
        - {x}改到了 {v}
        - {x}新日期 {v}
        states
        - {x}定在 {v}。
        - {x}目标是 {v}。
        - {x}安排在 {v}。
        restates
        - {x}从 {old} 改到了 {v}。
        - {day} 通知{x}改期，新日期是 {v}。
        - {x}现在是 {v}。
        whys
        - 排期会上定的。
        - 必须赶在季度末报表之前。
        - 跟合作方的发版节奏绑定。
        rewhys
        - 测试最后一轮发现了阻塞问题。
        - 对方要求多给些时间。
        - 依赖方延期，整体计划顺延。
        hows
        - {v} 前几天不要合有风险的改动。
        - 排依赖{x}的工作时把日期考虑进去。
        - 可能影响 {v} 的风险要尽早提出来。
        questions
        - {xq}是哪天？
        - {xq}的日期又是什么时候来着？
        - 离{xq}还有多久？
        """,
    ),
    "tool": frames(
        P,
        """
        names
        - {X}工具
        - {x}用什么
        - {X}：用 {v}
        renames
        - {x}改用 {v}
        - {X}工具替换
        - {X}换成 {v}
        descriptions
        - {x}用的是 {v}
        - 我们用 {v} 做{x}
        - {p} 的{x}工具是 {v}
        redescriptions
        - {x}从 {old} 换成了 {v}
        - {x}弃用 {old}，改用 {v}
        - {x}现在由 {v} 负责
        states
        - {p} 的{x}用 {v}。
        - {x}统一用 {v}。
        - {x}只配置了 {v}，没有别的。
        restates
        - {x}已经从 {old} 切到 {v}。
        - {x}不再用 {old}，{day} 起换成 {v}。
        - {x}现在用 {v}。
        whys
        - CI 镜像里自带的就是它。
        - 团队去年统一成了它。
        - 只有它能适配 monorepo 的目录结构。
        rewhys
        - {old} 在 CI 里又慢又不稳定。
        - {old} 已经没人维护了。
        - {day} 工具评审会上投票决定换的。
        hows
        - {x}别再推荐别的方案，直接用 {v} 的命令。
        - 新增的{x}配置按 {v} 来写。
        - 文档里提到别的{x}工具时换成 {v} 的写法。
        questions
        - {xq}用的什么工具？
        - 这个仓库里{xq}该用哪个工具？
        - {xq}怎么弄，用啥？
        """,
    ),
    "version": frames(
        P,
        """
        names
        - {X} 版本
        - {X} 锁定版本
        - 当前 {x} 版本
        renames
        - {X} 升级到 {v}
        - {X} 版本升级
        - {X} 升级
        descriptions
        - {p} 跑在 {x} {v} 上
        - {x} 锁定在 {v}
        - {x} 以 {v} 为准，不要用更新的
        redescriptions
        - {x} 从 {old} 升到了 {v}
        - {p} 已经升级到 {x} {v}
        - {x} 升到 {v}
        states
        - {p} 锁定 {x} {v}。
        - 所有环境都跑 {x} {v}。
        - CI 和线上用的都是 {x} {v}。
        restates
        - {x} 已从 {old} 升级到 {v}。
        - {day} 起统一用 {x} {v}。
        - {x} 现在是 {v}。
        whys
        - 有个依赖在新版本上会挂。
        - 线上镜像基于这个版本构建。
        - 平台组只支持这个版本线。
        rewhys
        - {old} 到了生命周期末尾。
        - 卡住升级的那个依赖终于修好了。
        - {day} 新的基础镜像出来了。
        hows
        - 不要用比 {x} {v} 更新的语法或 API。
        - 跑测试前把本地版本切到 {v}。
        - 加依赖前确认兼容 {v}。
        questions
        - 我们现在用的{xq}是哪个版本？
        - 本地该装哪个版本的{xq}？
        - {xq}的新特性能用吗，线上是什么版本？
        """,
    ),
    "metric": frames(
        P,
        """
        names
        - {X}
        - {X}基线
        - {X}测量结果
        renames
        - {X}优化后
        - {X}修复后
        - {X}重新测量
        descriptions
        - {x}实测 {v}
        - 当前{x}：{v}
        - {x}在 {v} 左右
        redescriptions
        - {x}现在是 {v}（之前 {old}）
        - {x}最新数据：{v}
        - {x}重新测得 {v}
        states
        - {x}是 {v}。
        - 实测{x}：{v}。
        - {day} 测得{x}为 {v}。
        restates
        - {x}从 {old} 变成了 {v}。
        - {day} 重新测了一次，{x}是 {v}。
        - {x}现在是 {v}（之前是 {old}）。
        whys
        - 这是组里每周跟踪的数字。
        - 这是性能优化的基线。
        - 产品周报里要这个数。
        rewhys
        - {day} 上线了缓存改动。
        - 这是查询重写之后的数据。
        - CI 机器升级了。
        hows
        - 对外说当前数据用 {v}，别用老数字。
        - 新的测量结果拿来和 {v} 比。
        - 明显比 {v} 差就当回归处理。
        questions
        - {xq}现在是多少？
        - {xq}最近怎么样？
        - {xq}有最新数据吗？
        """,
    ),
    "limit": frames(
        P,
        """
        names
        - {X}
        - {X}配置
        - {X}设置
        renames
        - {X}调整
        - 新的{x}
        - {X}已修改
        descriptions
        - {x}设为 {v}
        - {x}：{v}
        - {x}配置成 {v}
        redescriptions
        - {x}从 {old} 调成了 {v}
        - {x}现在是 {v}
        - {day} 把{x}改成 {v}
        states
        - {x}是 {v}。
        - {x}配置为 {v}。
        - 我们把{x}设成了 {v}。
        restates
        - {x}从 {old} 改成了 {v}。
        - {x}现在是 {v}。
        - {day} {x}调整为 {v}。
        whys
        - 压测后调出来的。
        - 下游扛不住更多。
        - 和服务商给的配额一致。
        rewhys
        - 原来的值在高峰期会超时。
        - 服务商提高了我们的配额。
        - {day} 的故障说明原来的值不对。
        hows
        - 别在代码里写死，从配置读。
        - 重试和客户端设置要和 {v} 保持一致。
        - 排查相关报错时记得这个值是 {v}。
        questions
        - {xq}现在设的多少？
        - {xq}是多少？
        - {xq}配置成多少了？
        """,
    ),
    "schedule": frames(
        P,
        """
        names
        - {X}调度时间
        - {x}什么时候跑
        - {X} cron
        renames
        - {X}调度时间变更
        - {X}改时间了
        - {x}新的执行时间
        descriptions
        - {x}：{v}执行
        - {x}的调度：{v}
        - {x} cron：{v}
        redescriptions
        - {x}改成{v}执行（原来是{old}）
        - {x}挪到了{v}
        - {x}调度改为{v}
        states
        - {x}{v}执行。
        - {x}的触发时间是{v}。
        - {x}走 cron，{v}跑。
        restates
        - {x}从{old}改到了{v}。
        - {x}现在{v}执行。
        - {day} 起{x}改为{v}执行。
        whys
        - 必须在上班前跑完。
        - 不然会和备份抢资源。
        - 上游数据刚好在这之前落地。
        rewhys
        - 原来的时间和备份窗口重叠。
        - 上游调整了导出时间。
        - 业务方想要更新鲜的数据。
        hows
        - {x}执行前后别手动触发。
        - 排查数据延迟时考虑调度时间。
        - 执行时会有负载尖峰，属正常。
        questions
        - {xq}几点跑？
        - {xq}多久执行一次？
        - {xq}的调度时间是什么？
        """,
    ),
    "flag": frames(
        P,
        """
        names
        - {X}灰度
        - 开关：{x}
        - {X}开关状态
        renames
        - {X}灰度扩大
        - {X}开关更新
        - {X}灰度进度
        descriptions
        - {x}开关对{v}打开
        - {x}已灰度到{v}
        - {x}灰度范围：{v}
        redescriptions
        - {x}灰度从{old}扩大到{v}
        - {x}现在对{v}开放
        - {x}开关更新：{v}
        states
        - {x}开关目前对{v}打开。
        - {x}灰度到了{v}。
        - 开关 `{xs}`：{v}。
        restates
        - {x}从{old}放量到了{v}。
        - {day} 起{x}对{v}开放。
        - {x}现在覆盖{v}。
        whys
        - 逐步放量观察错误率。
        - 客服培训完才能全量。
        - 功能还需要补数据。
        rewhys
        - 上一档错误率没有变化。
        - {day} 客服确认可以放量。
        - 上一阶段很平稳，于是扩大了。
        hows
        - 排查{x}相关的用户反馈前先看开关状态。
        - 开关相关的代码先别删。
        - 新代码两种开关状态都要测。
        questions
        - {xq}灰度到多少了？
        - {xq}全量了吗？
        - 现在哪些人能用到{xq}？
        """,
    ),
    "tracker": frames(
        R,
        """
        names
        - {X}跟踪
        - {x}提到哪里
        - {X}工单
        renames
        - {X}工单迁移
        - {X}跟踪位置变更
        - {x}的新看板
        descriptions
        - {x}在 {v} 跟踪
        - {x}提到 {v}
        - {v} 收{x}
        redescriptions
        - {x}迁到了 {v}
        - {x}现在提到 {v}
        - {x}的新位置：{v}
        states
        - {x}统一在 {v} 跟踪。
        - {x}请提到 {v}。
        - {x}都在 {v} 里。
        restates
        - {x}从 {old} 迁到了 {v}。
        - {x}现在提到 {v}，{old} 已归档。
        - {day} 起{x}用 {v}。
        whys
        - 每周一统一分诊。
        - 记得打上模块标签。
        - PR 描述里要贴上工单链接。
        rewhys
        - 工单系统迁移后换的。
        - 旧看板 {day} 归档了。
        - 两个组合并成了一个看板。
        hows
        - 提之前先搜一下有没有重复的。
        - P1 会直接呼值班。
        - 写清楚复现步骤，分诊的人每次都会问。
        questions
        - {xq}要提到哪里？
        - {xq}在哪个看板跟踪？
        - {xq}该往哪提？
        """,
    ),
    "scope": frames(
        P,
        """
        names
        - {X}范围
        - {x}做什么
        - {X}计划
        renames
        - {X}范围调整
        - {X}内容变更
        - {x}新范围
        descriptions
        - {x}做{v}
        - {x}范围：{v}
        - {x}主要是{v}
        redescriptions
        - {x}改成做{v}（原来是{old}）
        - {x}范围调整为{v}
        - {x}现在是{v}
        states
        - {x}做{v}。
        - {x}的范围：{v}。
        - {x}只做{v}，不多做。
        restates
        - {x}范围调整了：现在做{v}（原来是{old}）。
        - {day} 起{x}改为{v}。
        - {x}改成了{v}。
        whys
        - 排期会上定的，每一步都能单独上线。
        - 按依赖关系排的先后。
        - 每一步都控制在能回滚的大小。
        rewhys
        - 原计划在剩下的时间里做不完。
        - {day} 依赖方有变化，重新拆分了。
        - 评审觉得原来拆得太大。
        hows
        - 不要把后面阶段的活提前塞进{x}。
        - 开工前先确认任务属于哪一期。
        - PR 描述里关联{x}。
        questions
        - {xq}做什么？
        - {xq}包括哪些内容？
        - {xq}的范围是什么？
        """,
    ),
    "channel": frames(
        R,
        """
        names
        - {X}群
        - {x}发在哪
        - {X}通知渠道
        renames
        - {X}群迁移
        - {x}的新群
        - {X}群改名
        descriptions
        - {x}发到 {v}
        - {v} 是发{x}的地方
        - {x}的群：{v}
        redescriptions
        - {x}改到了 {v}
        - {x}现在发在 {v}
        - {v} 取代 {old} 接收{x}
        states
        - {x}发到 {v}。
        - {x}都在 {v} 里。
        - {x}请发 {v}。
        restates
        - {x}从 {old} 挪到了 {v}。
        - {x}现在发 {v}，{old} 已解散。
        - {day} 起{x}发到 {v}。
        whys
        - 紧急的要 @ 值班同学。
        - 一件事一个话题，别刷屏。
        - 群里大多数人开了免打扰，需要谁就 @ 谁。
        rewhys
        - {day} 重新整理了群。
        - 原来的群什么都发，太杂。
        - 团队合并后改了名。
        hows
        - 在话题里贴上 runbook。
        - 不要多群重复发。
        - 第一行先写一句总结。
        questions
        - {xq}发在哪个群？
        - {xq}应该发到哪？
        - {xq}的群是哪个？
        """,
    ),
}


def _item(key: str, kind: MemoryType, questions: tuple[str, ...], *versions: Version) -> Item:
    return Item(key, kind, versions, questions)


V = Version

RULES = (
    _item(
        "real-db",
        F,
        ("集成测试里能不能 mock 掉数据库？", "写 DAO 层测试要起真的数据库吗？"),
        V(
            "测试不要 mock 数据库",
            "no-mock-db",
            "集成测试必须连真实数据库，不允许 mock",
            "集成测试一律连真实的 MySQL（用 testcontainers 起），不要 mock。\n"
            "**Why:** 之前 mock 的测试全过了，结果线上迁移脚本是坏的。\n"
            "**How to apply:** 凡是碰到数据层的测试都用真实库的 fixture。",
        ),
    ),
    _item(
        "commit-lang",
        F,
        ("commit message 用中文还是英文写？", "提交信息有什么格式要求？"),
        V(
            "commit message 用中文",
            "commit-message-zh",
            "用户要求 commit message 用中文写，一句话说清改了什么",
            "commit message 用中文，第一行一句话概括改动，必要时空一行写原因。\n"
            "**Why:** 组里看 git log 的人中文更快。\n"
            "**How to apply:** 所有提交，包括修复类的小提交。",
        ),
        V(
            "commit message 改用英文",
            "commit-message-en",
            "仓库开源后 commit message 统一改成英文，沿用 conventional commits 前缀",
            "项目准备开源，commit message 从现在起全部写英文，格式 `fix(order): ...` 这种 conventional commits。\n"
            "**Why:** 外部贡献者看不懂中文日志，release 工具也按前缀生成 changelog。\n"
            "**How to apply:** 新提交一律英文，老提交不用改。",
        ),
    ),
    _item(
        "no-summary",
        F,
        ("每次回复最后要不要总结一下改了哪些？",),
        V(
            "回复结尾不要总结",
            "no-trailing-summary",
            "用户不需要回复末尾再总结一遍做了什么",
            "回复结尾不要再列一遍做了哪些改动。\n"
            '**Why:** 用户原话："diff 我自己会看"。\n'
            "**How to apply:** 所有回复，做完就停。",
        ),
    ),
    _item(
        "plan-first",
        F,
        ("这个需求我直接开始写代码可以吗？",),
        V(
            "动手前先讲思路",
            "explain-plan-first",
            "改动超过一个文件时，先说方案等用户确认再写代码",
            "涉及多个文件的改动，先用几句话说清楚方案，等用户点头再动手。\n"
            "**Why:** 有两次写了一大半才发现方向不对，白干。\n"
            "**How to apply:** 单文件的小修复可以直接改。",
        ),
    ),
    _item(
        "no-dep-upgrade",
        F,
        ("顺手把 gin 升到最新版行不行？",),
        V(
            "不要顺手升级依赖",
            "no-drive-by-upgrades",
            "除非任务要求，不要升级 go.mod / package.json 里的依赖版本",
            "不要在做别的事情时顺手升级依赖。\n"
            "**Why:** 上次顺手升了 gorm 小版本，查询行为变了，排查了一整天。\n"
            "**How to apply:** 需要升级就单独提一个 PR 说明原因。",
        ),
    ),
    _item(
        "test-command",
        F,
        ("提交前要跑哪些测试？", "本地跑测试用什么命令？"),
        V(
            "本地跑测试的命令",
            "test-command",
            "本地只跑 go test ./... -short，集成测试交给 CI",
            "本地跑 `go test ./... -short` 就够了，带 `-short` 会跳过集成测试。\n"
            "**Why:** 集成测试要起一堆容器，笔记本上太慢。\n"
            "**How to apply:** 改了哪个包跑哪个包也行。",
        ),
        V(
            "提交前跑全量测试",
            "run-full-tests-before-push",
            "push 之前必须跑 make test-all（含集成测试），不能只跑 -short",
            "以后 push 前要跑 `make test-all`，集成测试也在里面。\n"
            "**Why:** 连着两次只跑了 -short，集成测试在 CI 上挂了，阻塞了别人合并。现在容器复用后全量只要 5 分钟。\n"
            "**How to apply:** 开发中可以跑 -short，push 前必须全量。",
        ),
    ),
    _item(
        "zap-logging",
        F,
        ("打日志用 fmt.Println 行吗？", "新模块的日志怎么打？"),
        V(
            "日志用 zap 结构化输出",
            "structured-logging-zap",
            "日志统一用 zap 的结构化字段，禁止 fmt.Println 和拼接字符串",
            '打日志用项目封装的 zap logger，例如 `log.Info("order created", zap.String("order_id", id))`。\n'
            "**Why:** 日志平台按字段检索，拼接的字符串搜不到。\n"
            "**How to apply:** 关键 ID 一律作为字段输出。",
        ),
    ),
    _item(
        "api-envelope",
        F,
        ("新接口的返回结构怎么定？",),
        V(
            "接口返回统一结构",
            "api-response-envelope",
            "HTTP 接口统一返回 {code, msg, data}，错误码在 errcode 包里定义",
            '所有 HTTP 接口返回 `{"code": 0, "msg": "ok", "data": ...}`，错误码只能用 `errcode` 包里的常量。\n'
            "**Why:** 前端和小程序按 code 统一处理错误。\n"
            "**How to apply:** 新错误码先加到 errcode 包并写注释。",
        ),
    ),
    _item(
        "n-plus-one",
        F,
        ("在 for 循环里逐个查用户信息可以吗？",),
        V(
            "循环里不要查库",
            "no-queries-in-loops",
            "禁止在循环里逐条查数据库，改成批量查询",
            "不要在 for 循环里一条条查库，先收集 ID 再用 `IN` 批量查。\n"
            "**Why:** 订单列表页曾因为 N+1 查询把数据库 CPU 打满。\n"
            "**How to apply:** review 时看到循环里的 DB 调用就要改。",
        ),
    ),
    _item(
        "wrap-errors",
        F,
        ("Go 里 error 直接 return 回去可以吗？",),
        V(
            "error 要带上下文",
            "wrap-errors-with-context",
            '返回 error 时用 fmt.Errorf("...: %w", err) 包一层上下文',
            '往上返回 error 时包一层：`fmt.Errorf("query order %d: %w", id, err)`。\n'
            "**Why:** 光秃秃的 `record not found` 根本不知道是哪里报的。\n"
            "**How to apply:** 用 `%w` 保留原错误，方便 errors.Is 判断。",
        ),
    ),
    _item(
        "branch-names",
        F,
        ("新分支怎么命名？",),
        V(
            "分支命名规则",
            "branch-naming",
            "分支名用 feature/需求号-简述，修 bug 用 fix/",
            "分支名格式：`feature/REQ-1234-short-desc`，修 bug 用 `fix/BUG-567-xxx`。\n"
            "**Why:** 流水线靠前缀决定跑哪些检查。\n"
            "**How to apply:** 需求号从禅道里拿。",
        ),
        V(
            "分支命名改了",
            "branch-naming-new",
            "换成云效后分支名统一为 工号/需求号，不再区分 feature 和 fix",
            "需求管理迁到云效以后，分支名改成 `工号/需求号`，比如 `z1024/REQ-2210`，不再区分 feature/fix。\n"
            "**Why:** 云效按这个格式自动关联需求。\n"
            "**How to apply:** 用户工号是 z1024。",
        ),
    ),
    _item(
        "release-window",
        F,
        ("今天晚上九点发版可以吗？", "什么时间段可以上线？"),
        V(
            "晚上不发版",
            "no-night-release",
            "晚上 8 点以后不允许发线上",
            "线上发布只能在晚上 8 点前。\n"
            "**Why:** 晚上出问题没人兜底，之前有过半夜回滚的事故。\n"
            "**How to apply:** 来不及就第二天上午发。",
        ),
        V(
            "发布窗口调整",
            "release-window",
            "发布窗口改为工作日 10:00–17:00，周五下午也不发",
            "新的发布规范：只能在工作日 10:00 到 17:00 发线上，周五 14 点后也不发。\n"
            "**Why:** 事故复盘后 SRE 收紧了窗口。\n"
            "**How to apply:** 超出窗口要在变更群里申请特批。",
        ),
    ),
    _item(
        "no-force-push",
        F,
        ("帮我 force push 一下把提交历史整理干净",),
        V(
            "force push 前先问",
            "ask-before-force-push",
            "任何 force push 都要先征得用户同意",
            "不要擅自 `git push --force`，哪怕是用户自己的分支。\n"
            "**Why:** 之前覆盖掉过同事推上来的提交。\n"
            "**How to apply:** 先把命令给用户看，确认了再执行。",
        ),
    ),
    _item(
        "ddl-review",
        F,
        ("加个索引直接在线上执行 ALTER 可以吗？",),
        V(
            "DDL 走 DBA 审核",
            "ddl-needs-dba-review",
            "所有表结构变更都要在数据库工单系统里提单，DBA 审核后执行",
            "表结构变更（建表、加字段、加索引）不要自己在线上执行，提数据库工单让 DBA 审。\n"
            "**Why:** 大表直接 ALTER 锁过表，订单写入卡了十分钟。\n"
            "**How to apply:** 迁移脚本放进 PR，同时提工单。",
        ),
    ),
    _item(
        "no-panic",
        F,
        ("参数不合法时直接 panic 行吗？",),
        V(
            "业务代码不要 panic",
            "no-panic-in-business-code",
            "业务代码里禁止 panic，只能返回 error",
            "除了 init 阶段配置缺失，业务代码一律返回 error，不要 panic。\n"
            "**Why:** 一个 panic 把整个消费者进程带挂过。\n"
            "**How to apply:** 参数校验失败返回带错误码的 error。",
        ),
    ),
    _item(
        "config-no-hardcode",
        F,
        ("超时时间先写死在代码里可以吗？",),
        V(
            "配置不要写死",
            "no-hardcoded-config",
            "超时、地址、开关等配置从 Nacos 读取，不要硬编码",
            "超时时间、下游地址、业务开关都放 Nacos 配置，不要写死在代码里。\n"
            "**Why:** 改一个超时还要重新发版太慢。\n"
            "**How to apply:** 新配置项要给默认值并写进配置说明。",
        ),
    ),
    _item(
        "reply-language",
        F,
        ("你回复我用什么语言比较好？",),
        V(
            "回复用中文，标识符保留英文",
            "reply-in-chinese",
            "回复用中文，但代码、命令、报错信息保持原样不要翻译",
            "和用户交流用中文；代码里的标识符、命令、报错原文不要翻译。\n"
            "**Why:** 用户说翻译后的报错没法直接搜。\n"
            "**How to apply:** 所有回复。",
        ),
    ),
    _item(
        "api-docs",
        F,
        ("改了接口参数，文档要怎么更新？",),
        V(
            "改接口同步改文档",
            "update-api-docs",
            "改了接口必须同步更新 YApi 上的接口文档",
            "接口字段有变化时要同步改 YApi 上的文档。\n"
            "**Why:** 前端按 YApi 联调，文档不同步会白调半天。\n"
            "**How to apply:** PR 描述里贴上文档链接。",
        ),
        V(
            "接口文档自动生成",
            "api-docs-generated",
            "接口文档改为从 swag 注释自动生成，不再手动维护 YApi",
            "现在接口文档用 swag 从代码注释生成，CI 自动发布，YApi 停用了。\n"
            "**Why:** 手动维护的 YApi 总是和代码对不上。\n"
            "**How to apply:** 改接口时改 handler 上的 swag 注释，不要再去 YApi。",
        ),
    ),
    _item(
        "rate-limit-new-api",
        F,
        ("新开放的接口需要加限流吗？",),
        V(
            "新接口要加限流",
            "rate-limit-new-endpoints",
            "对外开放的新接口必须配置限流规则",
            "对外的新接口上线前要在网关配限流（默认按用户 20 QPS）。\n"
            "**Why:** 有个接口被刷，拖垮了整个服务。\n"
            "**How to apply:** 限流规则写进上线 checklist。",
        ),
    ),
    _item(
        "comments-zh",
        F,
        ("代码注释用中文写可以吗？",),
        V(
            "注释可以用中文",
            "comments-in-chinese",
            "代码注释用中文，说明为什么这样做，而不是做了什么",
            "注释用中文写，重点写为什么，不要复述代码在干什么。\n"
            "**Why:** 组里都是中文母语，业务规则用中文说得更清楚。\n"
            "**How to apply:** 导出的函数注释仍以函数名开头（golint 要求）。",
        ),
    ),
)

USERS = (
    _item(
        "role",
        U,
        ("我的技术背景你还记得吗？", "前端的东西要给我讲细一点吗？"),
        V(
            "用户角色",
            "user-role",
            "后端开发，主要写 Go，前端不太熟",
            "用户是后端开发，写了五六年 Go，Java 也写过；前端（尤其是小程序）不太熟，讲前端的时候可以多解释几句。",
        ),
    ),
    _item(
        "city",
        U,
        ("我现在在哪个城市办公？",),
        V(
            "用户所在城市",
            "user-city",
            "用户在杭州办公",
            "用户在杭州总部办公，线下会议一般约在杭州。",
        ),
        V(
            "用户调到深圳",
            "user-moved-shenzhen",
            "用户调到了深圳分部",
            "用户说这个月起调到深圳分部了，线下沟通改约深圳。",
        ),
    ),
    _item(
        "editor",
        U,
        ("我用的是什么 IDE？",),
        V(
            "用户的编辑器",
            "user-editor",
            "用户用 GoLand，偶尔用 VS Code 看前端代码",
            "用户平时用 GoLand，看前端代码时才开 VS Code。给快捷键时按 GoLand（JetBrains 键位）说。",
        ),
    ),
    _item(
        "machine",
        U,
        ("我开发用的是什么系统？",),
        V(
            "用户的开发机",
            "user-machine",
            "ThinkPad + Ubuntu 22.04，不是 Mac",
            "用户的开发机是 ThinkPad，跑 Ubuntu 22.04。给命令时别用 brew，按 apt 来。",
        ),
    ),
    _item(
        "team",
        U,
        ("我现在在哪个组？", "我的直属 leader 是谁？"),
        V(
            "用户所在团队",
            "user-team",
            "用户在交易组，leader 是王磊",
            "用户在交易组，直属 leader 是王磊。",
        ),
        V(
            "用户换组了",
            "user-team-change",
            "用户调到了基础架构组，新 leader 是陈静",
            "组织调整后用户去了基础架构组，leader 换成陈静。交易组的老代码有问题还是会找他。",
        ),
    ),
    _item(
        "hours",
        U,
        ("我一般几点还在线？",),
        V(
            "用户作息",
            "user-hours",
            "用户习惯晚上工作，上午十点前基本不在",
            "用户上午十点后才上线，晚上经常到十一二点。长任务可以安排在晚上跑。",
        ),
    ),
    _item(
        "rust",
        U,
        ("我的 Rust 水平怎么样？",),
        V(
            "用户在学 Rust",
            "user-learning-rust",
            "用户业余在学 Rust，遇到所有权相关的要讲清楚",
            "用户业余时间在学 Rust，碰到 Rust 代码时把所有权、生命周期讲明白；Go 就不用解释基础。",
        ),
    ),
    _item(
        "brevity",
        U,
        ("我喜欢什么样的回答风格？",),
        V(
            "用户喜欢简短回答",
            "user-prefers-short-answers",
            "用户喜欢直接给结论和代码，不要铺垫",
            "用户喜欢回答直接：先给结论或代码，解释两三句就行，不喜欢长篇铺垫。",
        ),
    ),
    _item(
        "nickname",
        U,
        ("PR 描述里怎么称呼我？",),
        V(
            "用户称呼",
            "user-name",
            "用户叫周航，组里都叫他老周，工号 z1024",
            "用户叫周航，同事都叫他老周；工号 z1024，GitHub 账号 zhouhang。",
        ),
    ),
    _item(
        "english",
        U,
        ("英文文档我看得懂吗？",),
        V(
            "用户的英文",
            "user-english",
            "用户读英文文档没问题，但交流更习惯中文",
            "用户看英文文档和源码没障碍，但交流、解释更习惯中文。引用英文资料时给个中文要点。",
        ),
    ),
    _item(
        "promotion",
        U,
        ("我这半年的目标是什么？",),
        V(
            "用户的目标",
            "user-goal",
            "用户在准备 P7 晋升答辩，需要有架构类产出",
            "用户这半年在准备 P7 晋升答辩，希望多做有架构设计的事情，写技术方案时可以帮他把结构理清楚。",
        ),
    ),
    _item(
        "oncall",
        U,
        ("我多久值一次班？",),
        V(
            "用户值班安排",
            "user-on-call",
            "用户每月值班一周",
            "用户每个月轮到一周值班（周一早上交接）。值班那周尽量只接小改动。",
        ),
        V(
            "用户值班频率变了",
            "user-on-call-change",
            "值班改成两个月一次",
            "组里新来了三个人，用户值班变成两个月轮一次，仍然是周一早上交接。",
        ),
    ),
)

OFFTOPIC = (
    "红烧肉怎么做才不腻？",
    "帮我写一首关于秋天的七言绝句",
    "蒙提霍尔问题到底是怎么回事？",
    "木星有几颗卫星？",
    "推荐几本讲谈判的书",
    "摄氏度换算成华氏度有什么心算技巧？",
    "蒙古的首都是哪里？",
    "帮我想一段给奶奶的生日祝福",
    "久坐腰疼有什么拉伸动作？",
    "讲一个关于章鱼的冷知识",
    "去成都玩三天怎么安排？",
    "怎么练盲打比较快？",
    "停机问题能用大白话解释一下吗？",
    "溏心蛋要煮几分钟？",
    "三国演义里赤壁之战的经过讲一下",
    "非洲最高的山是哪座？",
    "象棋里马走日是什么意思？",
    "太阳能电池板是怎么发电的？",
    "意大利语的早上好怎么说？",
    "给读书会起几个名字",
    "天空为什么是蓝色的？",
    "十月去新疆要带什么衣服？",
    "鳄鱼和短吻鳄有什么区别？",
    "复利是怎么算的？",
    "猫为什么喜欢钻纸箱？",
)

LANGUAGE = Language(
    code="zh",
    kinds=KINDS,
    rules=RULES,
    users=USERS,
    themes=THEMES,
    offtopic=OFFTOPIC,
    date=lambda y, m, d: f"{y}-{m:02d}-{d:02d}",
    utc_offset=8,
    spaced=False,
)
