/* orgbrain's web UI: progressive enhancement only. Every page works without this file;
   with it, files can be dropped (each sent with a progress bar), the grid follows
   indexing live, columns sort, and the graph is drawn. */
(function () {
  "use strict";

  function csrf() {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.getAttribute("content") : "";
  }

  // -- upload: drop or choose files, one request each, with progress -------------------
  function setUpUpload() {
    var form = document.getElementById("upload");
    var zone = document.getElementById("dropzone");
    var input = document.getElementById("file");
    var list = document.getElementById("uploads");
    if (!form || !zone || !input || !list) return;
    var maxBytes = parseInt(zone.getAttribute("data-max-mb") || "0", 10) * 1024 * 1024;

    function sendOne(file) {
      return new Promise(function (resolve) {
        var li = document.createElement("li");
        var name = document.createElement("span");
        name.textContent = file.name;
        var bar = document.createElement("progress");
        bar.max = 100; bar.value = 0;
        bar.setAttribute("aria-label", "Uploading " + file.name);
        var status = document.createElement("span");
        status.className = "meta";
        li.appendChild(name); li.appendChild(bar); li.appendChild(status);
        list.appendChild(li);
        if (maxBytes && file.size > maxBytes) {
          status.textContent = "too large: at most " + (maxBytes / 1048576) + " MB";
          status.className = "error"; bar.remove(); resolve(false); return;
        }
        var data = new FormData();
        data.append("csrf", csrf());
        ["scope", "kind"].forEach(function (f) {
          var el = form.elements.namedItem(f);
          if (el && el.value) data.append(f, el.value);
        });
        var idx = form.querySelector('input[name="index"]');
        if (idx && idx.checked) data.append("index", "1");
        data.append("file", file, file.name);
        var xhr = new XMLHttpRequest();
        xhr.open("POST", form.getAttribute("action"));
        xhr.setRequestHeader("Accept", "application/json");
        xhr.setRequestHeader("X-CSRF-Token", csrf());
        xhr.upload.onprogress = function (e) {
          if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total);
        };
        xhr.onload = function () {
          var body = {};
          try { body = JSON.parse(xhr.responseText); } catch (err) { body = {}; }
          if (xhr.status === 201) {
            bar.value = 100;
            status.textContent = "added as " + body.item.id + " (" + body.item.state + ")";
            resolve(true);
          } else {
            status.textContent = (body.detail || ("failed: " + xhr.status));
            status.className = "error"; resolve(false);
          }
        };
        xhr.onerror = function () { status.textContent = "the upload failed"; status.className = "error"; resolve(false); };
        xhr.send(data);
      });
    }

    function sendAll(files) {
      var chain = Promise.resolve(), added = 0, refused = 0;
      Array.prototype.forEach.call(files, function (f) {
        chain = chain.then(function () { return sendOne(f).then(function (ok) { if (ok) added++; else refused++; }); });
      });
      chain.then(function () {
        if (added) {
          var done = document.createElement("li");
          var a = document.createElement("a");
          a.href = "/ui/items?order=newest"; a.textContent = "Show them in the grid";
          done.appendChild(a); list.appendChild(done);
          // Moving on would wipe a refused file's reason off the page: stay until it is read.
          if (!refused) window.setTimeout(function () { window.location.assign("/ui/items?order=newest"); }, 600);
        }
      });
    }

    form.addEventListener("submit", function (e) {
      if (!input.files || !input.files.length) return;
      e.preventDefault();
      sendAll(input.files);
    });
    ["dragenter", "dragover"].forEach(function (t) {
      zone.addEventListener(t, function (e) { e.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (t) {
      zone.addEventListener(t, function (e) { e.preventDefault(); zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (e) {
      if (e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files.length) sendAll(e.dataTransfer.files);
    });
  }

  // -- live: follow rows that are queued or indexing until they settle -----------------
  function setUpLive() {
    var live = document.getElementById("live");
    var grid = document.getElementById("grid");
    if (!live || !grid) return;
    function pendingRows() {
      return Array.prototype.filter.call(grid.querySelectorAll("tbody tr[data-id]"), function (tr) {
        var s = tr.getAttribute("data-state");
        return s === "queued" || s === "indexing";
      });
    }
    var total = pendingRows().length;
    if (!total) return;
    function poll() {
      var rows = pendingRows();
      var ids = rows.map(function (tr) { return tr.getAttribute("data-id"); });
      if (!ids.length) {
        live.textContent = "Indexing done: " + total + " of " + total + ".";
        window.setTimeout(function () { window.location.reload(); }, 800);
        return;
      }
      fetch("/ui/states.json?ids=" + encodeURIComponent(ids.join(",")), {
        headers: { "Accept": "application/json" }, credentials: "same-origin"
      }).then(function (r) { return r.json(); }).then(function (body) {
        rows.forEach(function (tr) {
          var info = body.items[tr.getAttribute("data-id")];
          if (!info) return;
          tr.setAttribute("data-state", info.state);
          var badge = tr.querySelector('[data-role="state"]');
          if (badge) { badge.textContent = info.state; badge.className = "badge state-" + info.state; }
          var ans = tr.querySelector('[data-role="answerable"]');
          if (ans) ans.textContent = info.indexed ? "answerable" : (info.state === "failed" ? "not answerable" : "not answerable yet");
          var err = tr.querySelector('[data-role="error"]');
          if (err && info.error) { err.textContent = info.error; err.hidden = false; }
        });
        var left = pendingRows().length;
        live.textContent = "Indexing: " + (total - left) + " of " + total + " done · jobs queued " + body.queued + ", running " + body.running + ".";
        window.setTimeout(poll, 700);
      }).catch(function () { window.setTimeout(poll, 2000); });
    }
    live.textContent = "Indexing: 0 of " + total + " done.";
    poll();
  }

  // -- sort the rows of this page by a column -------------------------------------------
  function setUpSort() {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      table.querySelectorAll("th[data-sort]").forEach(function (th, col) {
        th.tabIndex = 0;
        th.setAttribute("role", "columnheader button");
        function sort() {
          var asc = th.getAttribute("aria-sort") !== "ascending";
          table.querySelectorAll("th[aria-sort]").forEach(function (o) { o.removeAttribute("aria-sort"); });
          th.setAttribute("aria-sort", asc ? "ascending" : "descending");
          var body = table.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows).filter(function (r) { return r.cells.length > col; });
          rows.sort(function (a, b) {
            var x = a.cells[col].getAttribute("data-value") || a.cells[col].textContent.trim().toLowerCase();
            var y = b.cells[col].getAttribute("data-value") || b.cells[col].textContent.trim().toLowerCase();
            return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
          });
          rows.forEach(function (r) { body.appendChild(r); });
        }
        th.addEventListener("click", sort);
        th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
      });
    });
  }

  // -- the graph ------------------------------------------------------------------------
  var COLORS = { file: "#0b57d0", section: "#4f7fd9", note: "#116329", entity: "#8a4b00", statement: "#6b3fa0" };

  function setUpGraph() {
    var el = document.getElementById("graph");
    var dataEl = document.getElementById("graph-data");
    if (!el || !dataEl || typeof window.cytoscape !== "function") return;
    var data = JSON.parse(dataEl.textContent);
    var info = document.getElementById("graph-info");
    var cy = window.cytoscape({
      container: el,
      elements: { nodes: data.nodes, edges: data.edges },
      wheelSensitivity: 0.3,
      style: [
        { selector: "node", style: {
          "label": "data(label)", "font-size": 10,
          "background-color": function (n) { return COLORS[n.data("cls")] || "#525a65"; },
          "color": "#1b1f24", "text-valign": "bottom", "text-margin-y": 4, "width": 18, "height": 18,
          "text-wrap": "wrap", "text-max-width": 110, "min-zoomed-font-size": 0 } },
        { selector: "node[depth = 0]", style: { "width": 30, "height": 30, "border-width": 3, "border-color": "#1b1f24" } },
        { selector: "edge", style: {
          "width": 1.5, "line-color": "#9aa3ad", "target-arrow-color": "#9aa3ad", "target-arrow-shape": "triangle",
          "curve-style": "bezier", "label": data.edges.length <= 12 ? "data(type)" : "", "font-size": 7, "color": "#525a65", "text-rotation": "autorotate" } },
        { selector: ":selected", style: { "background-color": "#b3261e", "line-color": "#b3261e" } }
      ],
      // Rings by hop, each node given room for its label: a force layout piled a file's
      // sections and the entities they mention on top of each other, labels and all.
      layout: { name: "concentric", animate: false, avoidOverlap: true, nodeDimensionsIncludeLabels: true,
        minNodeSpacing: 12, concentric: function (n) { return 10 - n.data("depth"); }, levelWidth: function () { return 1; } }
    });
    window.orgbrainGraph = cy;
    el.setAttribute("data-ready", String(cy.nodes().length));
    cy.on("tap", "node", function (e) {
      var d = e.target.data();
      info.innerHTML = "";
      var h = document.createElement("h2"); h.textContent = d.label; info.appendChild(h);
      var p = document.createElement("p"); p.className = "meta";
      p.textContent = d.kind + " · " + d.cls + " · " + d.scope + " · hop " + d.depth; info.appendChild(p);
      var open = document.createElement("a"); open.href = d.href; open.textContent = "Open";
      var walk = document.createElement("a"); walk.href = "/ui/graph/" + encodeURIComponent(d.id); walk.textContent = "Centre the graph here";
      info.appendChild(open); info.appendChild(document.createTextNode(" · ")); info.appendChild(walk);
    });
    cy.on("dbltap", "node", function (e) {
      window.location.assign("/ui/graph/" + encodeURIComponent(e.target.id()));
    });
  }

  // -- a citation opened: bring the cited text into view ---------------------------------
  function showCited() {
    if (window.location.hash !== "#cited") return;
    var mark = document.querySelector('[data-role="cited"]');
    if (mark) mark.scrollIntoView({ block: "center" });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpUpload(); setUpLive(); setUpSort(); setUpGraph(); showCited();
  });
})();
