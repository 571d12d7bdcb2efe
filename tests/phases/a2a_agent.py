"""Stand-in for the agent under test: an A2A JSON-RPC server built from a2a-sdk's own server classes.

The run phase sends one non-streaming ``message/send`` per step to exactly the agent URL and keeps only a
``Task`` reply (a bare ``Message`` is dropped). So the stand-in answers every message with a completed Task
whose history holds, as a real tool-using agent's would: the user's message, an agent message with a tool call
(DataPart ``{name, args}``), an agent message with the tool's result (DataPart ``{name, response}``) and the
final text. Bound to 127.0.0.1 on a free port, served by uvicorn in a thread.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Self
from uuid import uuid4

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    DataPart,
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
    TextPart,
)

from tests.phases.standin_http import LOOPBACK, StandIn

TOOL = "get_weather"
TOOL_ARGS: dict[str, Any] = {"city": "New York"}


def answer_for(text: str) -> str:
    """The stand-in's final answer: it repeats the question so a judge (or a reader of the report) can match it."""
    return f"Stand-in agent answer to: {text}"


class ToolUsingExecutor(AgentExecutor):
    """Answers every message with a completed Task: tool call, tool result, final text."""

    def __init__(self) -> None:
        self.inputs: list[str] = []
        self.context_ids: list[str] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        self.inputs.append(text)
        self.context_ids.append(context.context_id or "")
        task_id, context_id = context.task_id or uuid4().hex, context.context_id or uuid4().hex

        def agent(*parts: Part) -> Message:
            return Message(role=Role.agent, parts=list(parts), message_id=uuid4().hex, context_id=context_id,
                           task_id=task_id)

        history = [
            context.message or Message(role=Role.user, parts=[Part(root=TextPart(text=text))],
                                       message_id=uuid4().hex),
            agent(Part(root=DataPart(data={"name": TOOL, "args": TOOL_ARGS}))),
            agent(Part(root=DataPart(data={"name": TOOL, "response": {"forecast": "sunny", "celsius": 21}}))),
            agent(Part(root=TextPart(text=answer_for(text)))),
        ]
        await event_queue.enqueue_event(Task(id=task_id, context_id=context_id, history=history,
                                             status=TaskStatus(state=TaskState.completed)))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("the stand-in agent answers at once; there is nothing to cancel")


class A2AAgentStandIn(StandIn):
    """Stand-in A2A agent; ``url`` is the agent URL the run phase is given."""

    def __init__(self) -> None:
        self.executor = ToolUsingExecutor()
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((LOOPBACK, 0))
        self.url = f"http://{LOOPBACK}:{self._socket.getsockname()[1]}"
        card = AgentCard(name="stand-in agent", description="Stand-in A2A agent for the phase tests",
                         url=self.url, version="1.0.0", capabilities=AgentCapabilities(streaming=False),
                         default_input_modes=["text"], default_output_modes=["text"], skills=[])
        handler = DefaultRequestHandler(agent_executor=self.executor, task_store=InMemoryTaskStore())
        app = A2AStarletteApplication(agent_card=card, http_handler=handler).build()
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True)

    def start(self) -> Self:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        if not self._server.started:
            raise RuntimeError("the stand-in A2A agent did not start within 10 s")
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()
