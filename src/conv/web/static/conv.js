// conv serve's one script (the Content-Security-Policy allows no other, and no inline one).
// What it puts on the page from the server's JSON goes in as text, never as markup.
"use strict";

function refreshed(url) {
  // The parts of the page marked data-live, as the server renders them now.
  return fetch(url, {credentials: "same-origin"}).then((answer) => answer.text()).then((html) => {
    const fresh = new DOMParser().parseFromString(html, "text/html");
    document.querySelectorAll("[data-live]").forEach((part) => {
      const now = fresh.getElementById(part.id);
      if (now) part.replaceChildren(...now.childNodes);
    });
  });
}

function hitsOf(data) {
  const list = document.createElement("ol");
  list.className = "hits";
  for (const hit of data.hits) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = "c/" + encodeURIComponent(hit.id) + "#turn-" + hit.turn;
    link.textContent = hit.title;
    const facts = document.createElement("span");
    facts.className = "facts";
    facts.textContent = " " + hit.source + " · turn " + hit.turn + " · " + hit.updated;
    const snippet = document.createElement("p");
    snippet.className = "snippet";
    for (const [piece, matched] of hit.snippet) {
      const part = document.createElement(matched ? "mark" : "span");
      part.textContent = piece;
      snippet.append(part);
    }
    item.append(link, facts, snippet);
    list.append(item);
  }
  if (!data.hits.length) {
    const none = document.createElement("p");
    none.textContent = data.error || "Nothing found.";
    return none;
  }
  return list;
}

function searchAsYouType() {
  const box = document.getElementById("q");
  const results = document.getElementById("results");
  if (!box || !results) return;
  let timer = null;
  let asked = 0;
  box.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const params = new URLSearchParams(new FormData(box.form));
      const mine = ++asked;
      history.replaceState(null, "", "./?" + params);
      if (!box.value.trim()) {
        refreshed("./?" + params);
        return;
      }
      fetch("api/search?" + params, {credentials: "same-origin"})
        .then((answer) => answer.ok ? answer.json() : answer.text().then((said) => ({hits: [], error: said})))
        .then((data) => { if (mine === asked) results.replaceChildren(hitsOf(data)); });
    }, 120);
  });
}

function live() {
  // The store's head, told by the server as it moves: what came in meanwhile appears.
  let head = null;
  const events = new EventSource("events");
  events.addEventListener("head", (event) => {
    if (head !== null && event.data !== head && !document.getElementById("q")?.value.trim()) {
      refreshed(location.href);
    }
    head = event.data;
  });
}

searchAsYouType();
live();
